package agent

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// textFormat is the Prometheus text exposition format 0.0.4.
var textFormat = expfmt.NewFormat(expfmt.TypeTextPlain)

// exposition is the text rendering of one sample's metrics. The metrics
// change only when a sample is taken, so they are rendered once per sample
// and every scrape serves the same bytes (gzip-compressed once, on the
// first scrape that accepts gzip); only the process metrics are gathered
// per scrape.
type exposition struct {
	text   []byte
	gzOnce sync.Once
	gz     []byte
}

// render gathers a collector into an exposition; sizeHint (the length of
// the previous one) sizes the buffer, which otherwise grows by doubling.
func render(c prometheus.Collector, sizeHint int) (*exposition, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(c); err != nil {
		return nil, err
	}
	mfs, err := reg.Gather()
	buf := bytes.NewBuffer(make([]byte, 0, sizeHint+sizeHint/8))
	enc := expfmt.NewEncoder(buf, textFormat)
	for _, mf := range mfs {
		if eerr := enc.Encode(mf); eerr != nil && err == nil {
			err = eerr
		}
	}
	return &exposition{text: buf.Bytes()}, err
}

func (e *exposition) gzipped() []byte {
	e.gzOnce.Do(func() { e.gz = gzipBytes(e.text) })
	return e.gz
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// serveMetrics writes the exposition of the last sample followed by the
// per-scrape metrics of live. With Accept-Encoding: gzip the two parts are
// two gzip members of one stream (RFC 1952 §2.2; Go's gzip.Reader reads
// multistream by default).
func (a *Agent) serveMetrics(live *prometheus.Registry) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e := a.expo.Load()
		var tail bytes.Buffer
		mfs, err := live.Gather()
		enc := expfmt.NewEncoder(&tail, textFormat)
		for _, mf := range mfs {
			_ = enc.Encode(mf)
		}
		if err != nil {
			a.opts.Logf("/metrics: %v", err)
		}
		h := w.Header()
		h.Set("Content-Type", string(textFormat))
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			h.Set("Content-Encoding", "gzip")
			h.Add("Vary", "Accept-Encoding")
			if e != nil {
				_, _ = w.Write(e.gzipped())
			}
			_, _ = w.Write(gzipBytes(tail.Bytes()))
			return
		}
		if e != nil {
			_, _ = w.Write(e.text)
		}
		_, _ = w.Write(tail.Bytes())
	}
}
