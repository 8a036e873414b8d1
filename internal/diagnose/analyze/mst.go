package analyze

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/mst"
)

// diagnoseMst reads `mst status [-v]`: the devices it lists show the HCAs
// are on the bus with MFT able to reach them; it states no fault, and
// an unloaded MST module is a note (the configuration module suffices).
func diagnoseMst(seg *Segment, file, text string) error {
	st, err := mst.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Summary = "mst status, " + plural(len(st.Devices), "MST device", "MST devices")
	var rdma []string
	for _, d := range st.Devices {
		if d.RDMA != "" {
			rdma = append(rdma, d.RDMA)
		}
	}
	if len(rdma) > 0 {
		seg.Summary += " (" + strings.Join(rdma, ", ") + ")"
	}
	if len(st.Devices) == 0 {
		seg.Empty = "no MST device listed (mst start loads the modules; lspci -d 15b3: shows whether the HCA is on the bus)"
	}
	for _, m := range st.Modules {
		if !m.Loaded {
			seg.Skipped = append(seg.Skipped, fmt.Sprintf("%s:%d: %q: a note, not a fault: the PCI configuration module is enough for mlxconfig, mlxlink and flint", file, m.Line, m.Text))
		}
	}
	return nil
}
