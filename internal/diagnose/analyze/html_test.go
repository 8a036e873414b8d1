package analyze

import (
	"strings"
	"testing"
)

// Mail-archive HTML (the Open MPI users list as MHonArc serves it) is
// turned into the text the reader saw, line for line.
func TestUnArchiveHTML(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in, out []string
	}{
		{"quotelev spans and br lines",
			[]string{`<span class="quotelev1">&gt; CA 'mthca0'`, `</span><br>`, `<span class="quotelev1">&gt; &quot;init&quot; &amp; more`, `</span><br>`, `<p>&#160; Local host:&#160;&#160; host85`, `<br>`},
			[]string{`> CA 'mthca0'`, ``, `> "init" & more`, ``, `  Local host:   host85`, ``}},
		{"escaped quoted mail without markup",
			[]string{`Ron &lt;r_at_[hidden]&gt; wrote:`, `&gt; bstatus`, `&gt; Infiniband device 'mlx4_0' port 1 status:`, `&gt;         state:           4: ACTIVE`},
			// Only the stretch of escaped quote lines is decoded.
			[]string{`Ron &lt;r_at_[hidden]&gt; wrote:`, `> bstatus`, `> Infiniband device 'mlx4_0' port 1 status:`, `>         state:           4: ACTIVE`}},
		{"one br in prose is not HTML",
			[]string{`see the log<br>`, `a &amp; b`, `x`},
			[]string{`see the log<br>`, `a &amp; b`, `x`}},
		{"an output holding & is left alone",
			[]string{`cmd &gt; file`, `echo a && b`, `&amp;`},
			[]string{`cmd &gt; file`, `echo a && b`, `&amp;`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ls := append([]string(nil), tc.in...)
			unArchiveHTML(ls)
			if strings.Join(ls, "\n") != strings.Join(tc.out, "\n") {
				t.Fatalf("got\n%q\nwant\n%q", ls, tc.out)
			}
		})
	}
	// normalize keeps the line count and takes the quoting off after.
	out, rw := normalize([]string{`<span class="quotelev1">&gt; hca_id: mthca0`, `</span><br>`, `<span class="quotelev1">&gt;        state:  PORT_ACTIVE (4)`, `</span><br>`, `<span class="quotelev1">&gt; x`, `</span><br>`})
	if len(out) != 6 || out[0] != "hca_id: mthca0" || len(rw) == 0 || rw[0].What != "mail-archive HTML" {
		t.Fatalf("normalize: %q %+v", out, rw)
	}
}

// The archive's lines of tags alone before the first break are dropped too.
func TestUnArchiveHTMLLeadingMarkup(t *testing.T) {
	ls := []string{`<!-- body="start" -->`, `<p>`, `Hi Gus,`, `<br>`, `&nbsp;/usr/sbin/ibstat`, `<br>`, `ibwarn: x`, `<br>`}
	unArchiveHTML(ls)
	want := []string{``, ``, `Hi Gus,`, ``, ` /usr/sbin/ibstat`, ``, `ibwarn: x`, ``}
	if strings.Join(ls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %q", ls)
	}
}
