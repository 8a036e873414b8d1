package expect

import (
	"encoding/json"
	"io"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

type jsonDoc struct {
	Version int          `json:"version"`
	Host    string       `json:"host,omitempty"`
	Driver  *string      `json:"driver_version,omitempty"`
	Devices []jsonDevice `json:"devices"`
}

type jsonDevice struct {
	Name      string     `json:"name"`
	Count     *int       `json:"count,omitempty"`
	Optional  bool       `json:"optional,omitempty"`
	HCAType   *string    `json:"hca_type,omitempty"`
	FWVersion *string    `json:"fw_ver,omitempty"`
	PCIe      *jsonPCIe  `json:"pcie,omitempty"`
	Ports     []jsonPort `json:"ports,omitempty"`
}

type jsonPCIe struct {
	Speed *pcie.Speed `json:"speed,omitempty"`
	Width *int        `json:"width,omitempty"`
}

type jsonPort struct {
	Port      int           `json:"port"`
	Ignore    bool          `json:"ignore,omitempty"`
	LinkLayer *ib.LinkLayer `json:"link_layer,omitempty"`
	State     *ib.PortState `json:"state,omitempty"`
	PhysState *ib.PhysState `json:"phys_state,omitempty"`
	Rate      *ib.Rate      `json:"rate,omitempty"`
}

// WriteJSON renders an expectation as JSON with the YAML format's keys
// and values, so Parse (JSON is YAML) reads it back unchanged.
func WriteJSON(w io.Writer, e *Expectation) error {
	doc := jsonDoc{Version: Version, Host: e.Host, Driver: e.DriverVersion, Devices: []jsonDevice{}}
	for _, d := range e.Devices {
		jd := jsonDevice{Name: d.Name, Count: d.Count, Optional: d.Optional, HCAType: d.HCAType, FWVersion: d.FWVersion}
		if d.PCIe.Speed != nil || d.PCIe.Width != nil {
			jd.PCIe = &jsonPCIe{Speed: d.PCIe.Speed, Width: d.PCIe.Width}
		}
		for _, p := range d.Ports {
			jd.Ports = append(jd.Ports, jsonPort{Port: p.Port, Ignore: p.Ignore, LinkLayer: p.LinkLayer, State: p.State, PhysState: p.PhysState, Rate: p.Rate})
		}
		doc.Devices = append(doc.Devices, jd)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
