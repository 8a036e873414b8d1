package catalog

import "fmt"

// Documented returns the default the catalogue documents for threshold
// name of finding id, for the tests that hold it to the value in force; an
// error when the catalogue has no such threshold.
func Documented(id, name string) (string, error) {
	m, ok := Default.Lookup(id)
	if !ok {
		return "", fmt.Errorf("%s is not catalogued", id)
	}
	for _, t := range m.Thresholds {
		if t.Name == name {
			return t.Default, nil
		}
	}
	return "", fmt.Errorf("%s documents no threshold %s", id, name)
}

// Thresholds lists every documented threshold as "id/name", for the tests
// that check each against the value in force.
func Thresholds() []string {
	var out []string
	for _, m := range Default.All() {
		for _, t := range m.Thresholds {
			out = append(out, m.ID+"/"+t.Name)
		}
	}
	return out
}
