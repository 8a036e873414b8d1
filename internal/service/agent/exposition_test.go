package agent

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/ibdoctor/ibdoctor/internal/testenv"
)

// scrapeDuration is the one line whose value differs between two
// renderings of one sample.
var scrapeDuration = regexp.MustCompile(`(?m)^(ibdoctor_scrape_duration_seconds) .*$`)

// TestExpositionSameAsClientGolang samples the simulated h100-ndr node in
// its mixed scenario (traffic, flaps, errors, kernel events) over a few
// intervals and checks that the exposition the agent serves is byte for
// byte what client_golang's registry and expfmt rendered of the same
// sample before (but the timed scrape duration), and that promtool
// accepts the whole /metrics response.
func TestExpositionSameAsClientGolang(t *testing.T) {
	l := newLiveNode(t, "h100-ndr", "mixed")
	opts := Options{Read: CachedRootSource(l.root, l.now, DefaultFullReadEvery), Ethtool: EthtoolFor(l.root), Boot: RootBoot(l.root), Version: "test"}
	if name, ok := RootKernelLog(l.root); ok {
		opts.Kernel = FileKernel(l.root, name)
	}
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if err := a.Sample(context.Background()); err != nil {
			t.Fatal(err)
		}
		l.step(15 * time.Second)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(a.metrics)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := expfmt.NewEncoder(&want, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	got := a.expo.Load().text
	mask := func(b []byte) string { return scrapeDuration.ReplaceAllString(string(b), "$1 X") }
	if mask(got) != mask(want.Bytes()) {
		t.Errorf("exposition differs from client_golang's (%d bytes, want %d)", len(got), want.Len())
	}
	for _, fam := range []string{"ibdoctor_port_data_rate_bytes_per_second", "ibdoctor_finding{", "ibdoctor_port_xmit_bytes_total", "ibdoctor_kernel_events_total"} {
		if !bytes.Contains(got, []byte(fam)) {
			t.Errorf("exposition lacks %s: the sample does not exercise it", fam)
		}
	}

	promtool := testenv.NeedTool(t, "promtool")
	rec := httptest.NewRecorder()
	a.Handler(HandlerOptions{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
