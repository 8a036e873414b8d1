package mpicheck

import "testing"

func TestWrongResult(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"Sun Dec 24 00:05:00 2017[1,367]<stdout>:Did not get expected value for reduce scatter", "Did not get expected value for reduce scatter", true},
		{"Sun Dec 24 00:05:00 2017[1,367]<stdout>:[367] L recvbuf[2] = 9304802016, expected 9415283180256Sun Dec 24 00:05:00 2017[1,0]<stdout>:Did not get expected value for reduce scatter", "Did not get expected value for reduce scatter", true},
		{"Did not get expected value for reduce scatter", "Did not get expected value for reduce scatter", true},
		{"[1,0]<stdout>: Found 3 errors", "Found 3 errors", true},
		{" Found 12 errors", "Found 12 errors", true},
		{" Found 0 errors", "", false},
		{" No Errors", "", false},
		{"[1,0]<stdout>: No Errors", "", false},
		{"Found the errors in the log", "", false},
	}
	for _, tc := range tests {
		got, ok := WrongResult(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("WrongResult(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzWrongResult(f *testing.F) {
	f.Add("Sun Dec 24 00:05:00 2017[1,367]<stdout>:Did not get expected value for reduce scatter")
	f.Add("[1,0]<stdout>: Found 3 errors")
	f.Fuzz(func(t *testing.T, s string) {
		if m, ok := WrongResult(s); ok && m == "" {
			t.Fatalf("%q: empty message", s)
		}
	})
}
