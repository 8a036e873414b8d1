package finding

import (
	"slices"
	"testing"
)

func TestSortAndExitCode(t *testing.T) {
	fs := []Finding{
		{ID: "b.x", Severity: Warning, Subject: Subject{Device: "mlx5_1"}},
		{ID: "a.y", Severity: Info},
		{ID: "c.z", Severity: Critical, Subject: Subject{Device: "mlx5_2"}},
		{ID: "a.a", Severity: Critical, Subject: Subject{Device: "mlx5_1"}},
		{ID: "c.z", Severity: Critical, Subject: Subject{Device: "mlx5_0"}},
	}
	step := map[string]int{"c.z": 1, "a.a": 2}
	Sort(fs, func(id string) int { return step[id] })
	var got []string
	for _, f := range fs {
		got = append(got, f.ID+"/"+f.Subject.Device)
	}
	want := []string{"c.z/mlx5_0", "c.z/mlx5_2", "a.a/mlx5_1", "b.x/mlx5_1", "a.y/"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	for _, tt := range []struct {
		fs      []Finding
		code    int
		verdict string
	}{
		{nil, ExitHealthy, "healthy"},
		{[]Finding{{Severity: Info}}, ExitHealthy, "healthy"},
		{[]Finding{{Severity: Info}, {Severity: Warning}}, ExitWarning, "warning"},
		{[]Finding{{Severity: Warning}, {Severity: Critical}}, ExitCritical, "critical"},
	} {
		if c, v := ExitCode(tt.fs), Verdict(tt.fs); c != tt.code || v != tt.verdict {
			t.Errorf("%v: exit %d %s, want %d %s", tt.fs, c, v, tt.code, tt.verdict)
		}
	}
}

func TestCatalogNewFillsRemedy(t *testing.T) {
	c := NewCatalog([]Meta{{ID: "port.x", Severity: Warning, Title: "t", Causes: []string{"c"},
		Remedy: []string{"ibportstate -C <dev> -P <port> -D 0 <port> reset", "mlxlink -d <pci>", "ip link set <netdev> up"}}})
	f := c.New("port.x", Subject{Device: "mlx5_2", Port: 1, PCI: "0000:38:00.0"}, "s")
	want := []string{"ibportstate -C mlx5_2 -P 1 -D 0 1 reset", "mlxlink -d 0000:38:00.0", "ip link set <netdev> up"}
	if !slices.Equal(f.Remedy, want) || f.Severity != Warning || f.Causes[0] != "c" {
		t.Fatalf("New: %+v", f)
	}
	m, _ := c.Lookup("port.x")
	if m.Remedy[0] != "ibportstate -C <dev> -P <port> -D 0 <port> reset" {
		t.Fatal("New must not modify the catalogue")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("unknown ID must panic")
		}
	}()
	c.New("port.unknown", Subject{}, "")
}

func TestNewCatalogRejectsDuplicates(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("duplicate ID must panic")
		}
	}()
	m := Meta{ID: "a.b", Severity: Info, Title: "x"}
	NewCatalog([]Meta{m}, []Meta{m})
}
