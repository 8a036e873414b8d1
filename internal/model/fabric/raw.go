// Package fabric holds one fabric collection as it was taken: the output of
// every infiniband-diags tool run, before any parsing. internal/source/fabric
// takes and saves collections; internal/rules/fabric builds its model of the
// subnet from them.
package fabric

import "time"

// Output is one tool run: what it printed and how it ended.
type Output struct {
	// Name is the file stem the output is saved under ("ibnetdiscover",
	// "sminfo").
	Name string   `json:"name"`
	Args []string `json:"args"`
	// Stdout and Stderr are saved as NAME.txt and NAME.stderr.
	Stdout []byte `json:"-"`
	Stderr []byte `json:"-"`
	// Err is why the run failed (missing tool, timeout, exit status); ""
	// on success.
	Err        string  `json:"error,omitempty"`
	DurationMS float64 `json:"duration_ms"`
	// StartMS is when the run started, after the collection's start: the
	// tools run concurrently.
	StartMS float64 `json:"start_ms,omitempty"`
}

// Raw is one collection: the outputs of every tool, as saved by `fabric
// collect` and read back by --from.
type Raw struct {
	Taken   time.Time `json:"taken"`
	Host    string    `json:"host,omitempty"`
	Outputs []*Output `json:"outputs"`
	// WallMS is how long the whole collection took.
	WallMS float64 `json:"wall_ms,omitempty"`
	// Source is where the collection was read from ("live" or a path).
	Source string `json:"-"`
}

// Get returns the output saved under name, or nil.
func (r *Raw) Get(name string) *Output {
	for _, o := range r.Outputs {
		if o.Name == name {
			return o
		}
	}
	return nil
}
