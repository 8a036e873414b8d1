package agent

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/common/expfmt"

	"github.com/ibdoctor/ibdoctor/internal/output/metrics"
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

// render writes the collector's text exposition (metrics.Collector
// AppendText: what client_golang's registry and expfmt wrote of it, at a
// seventh of the CPU); sizeHint (the length of the previous one) sizes
// the buffer, which otherwise grows by doubling.
func render(c *metrics.Collector, sizeHint int) *exposition {
	return &exposition{text: c.AppendText(make([]byte, 0, sizeHint+sizeHint/8))}
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
// per-scrape metrics of self. With Accept-Encoding: gzip the two parts are
// two gzip members of one stream (RFC 1952 §2.2; Go's gzip.Reader reads
// multistream by default).
func (a *Agent) serveMetrics(self *metrics.SelfCollector) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e := a.expo.Load()
		tail := self.AppendText(make([]byte, 0, 1024))
		h := w.Header()
		h.Set("Content-Type", string(textFormat))
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			h.Set("Content-Encoding", "gzip")
			h.Add("Vary", "Accept-Encoding")
			if e != nil {
				_, _ = w.Write(e.gzipped())
			}
			_, _ = w.Write(gzipBytes(tail))
			return
		}
		if e != nil {
			_, _ = w.Write(e.text)
		}
		_, _ = w.Write(tail)
	}
}
