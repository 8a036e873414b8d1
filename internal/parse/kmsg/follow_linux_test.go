//go:build linux

package kmsg

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func texts(recs []Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Text)
	}
	return out
}

// TestFollowRegularFile follows a fake /dev/kmsg that grows between reads:
// each read returns only the new records, a half-written line waits, a
// sequence gap counts lost records and a rewritten (shorter) file is read
// from its start.
func TestFollowRegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kmsg")
	appendFile(t, path, "6,1,100,-;first\n DEVICE=+pci:0000:3b:00.0\n4,2,200,-;second\n")
	f, err := Follow(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	steps := []struct {
		name      string
		add       string
		rewrite   bool
		want      []string
		lost      uint64
		restarted bool
		errs      int
	}{
		{name: "initial", want: []string{"first", "second"}},
		{name: "nothing new", want: nil},
		{name: "half a line", add: "3,3,300,-;thi", want: nil},
		{name: "line completed", add: "rd\n", want: []string{"third"}},
		{name: "gap of two", add: "3,6,600,-;sixth\n", want: []string{"sixth"}, lost: 2},
		{name: "bad record", add: "garbage\n3,7,700,-;seventh\n", want: []string{"seventh"}, errs: 1},
		{name: "rewritten", rewrite: true, add: "6,1,50,-;again\n", want: []string{"again"}, restarted: true},
	}
	for _, s := range steps {
		if s.rewrite {
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if s.add != "" {
			appendFile(t, path, s.add)
		}
		recs, errs, st, err := f.Read(ctx, 0)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := texts(recs); len(got) != len(s.want) || (len(got) > 0 && got[len(got)-1] != s.want[len(s.want)-1]) {
			t.Errorf("%s: records %q, want %q", s.name, got, s.want)
		}
		if st.Lost != s.lost || st.Restarted != s.restarted || len(errs) != s.errs {
			t.Errorf("%s: stats %+v errs %d, want lost %d restarted %v errs %d", s.name, st, len(errs), s.lost, s.restarted, s.errs)
		}
		if s.name == "initial" && recs[0].Device != "+pci:0000:3b:00.0" {
			t.Errorf("dictionary line lost: %+v", recs[0])
		}
	}
}

// TestFollowOverrun scripts the reads of /dev/kmsg (one record per read):
// an EPIPE in the middle (the ring buffer overwrote unread records) is
// noted and reading goes on at the next record, with the gap counted.
func TestFollowOverrun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kmsg")
	appendFile(t, path, "")
	f, err := Follow(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.regular = false
	script := []struct {
		data string
		err  error
	}{
		{data: "6,10,1,-;a\n"},
		{err: syscall.EPIPE},
		{data: "6,15,2,-;b\n DEVICE=+net:eth0\n"},
		{err: syscall.EINTR},
		{data: "6,16,3,c;c\n"},
		{err: syscall.EAGAIN},
	}
	i := 0
	f.read = func(b []byte) (int, error) {
		if i >= len(script) {
			return 0, syscall.EAGAIN
		}
		s := script[i]
		i++
		return copy(b, s.data), s.err
	}
	recs, _, st, err := f.Read(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(recs); len(got) != 3 || got[1] != "b" || recs[1].Device != "+net:eth0" {
		t.Fatalf("records %q %+v", got, recs)
	}
	if !st.Overrun || st.Lost != 4 {
		t.Errorf("stats %+v, want overrun and 4 lost", st)
	}
	recs, _, st, _ = f.Read(context.Background(), 0)
	if len(recs) != 0 || st.Overrun {
		t.Errorf("second read: %q %+v", texts(recs), st)
	}
}
