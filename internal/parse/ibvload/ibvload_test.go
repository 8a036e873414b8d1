package ibvload

import "testing"

func TestParse(t *testing.T) {
	c, ok := ParseCompare("mlx4_0 rx_buffer compare : PASS")
	if !ok || !c.Pass || c.Device != "mlx4_0" {
		t.Errorf("%+v %v", c, ok)
	}
	c, ok = ParseCompare("mlx4_0 rx_buffer compare : FAIL")
	if !ok || c.Pass || c.Result != "FAIL" {
		t.Errorf("%+v %v", c, ok)
	}
	r, ok := ParseRate("mlx4_0 port 1 -> 2 RDMA write transmitted 1218428534784 bytes in 728.260808 seconds, 1673.1 Mbytes/sec")
	if !ok || r.MBs != 1673.1 || r.What != "port 1 -> 2 RDMA write transmitted" || r.Device != "mlx4_0" {
		t.Errorf("%+v %v", r, ok)
	}
	r, ok = ParseRate("mlx4_0 port 2 received 77160992248 bytes in 62.984168 seconds, 1225.1 Mbytes/sec")
	if !ok || r.What != "port 2 received" {
		t.Errorf("%+v %v", r, ok)
	}
	for _, in := range []string{"rx_buffer compare : PASS", "the rx_buffer compare : went fine", "mlx4_0 port 1 transmitted lots of bytes in 1 seconds, x Mbytes/sec"} {
		if _, ok := ParseCompare(in); ok {
			t.Errorf("compare %q", in)
		}
		if _, ok := ParseRate(in); ok {
			t.Errorf("rate %q", in)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("mlx4_0 rx_buffer compare : PASS")
	f.Add("mlx4_0 port 1 -> 2 RDMA write transmitted 1218428534784 bytes in 728.260808 seconds, 1673.1 Mbytes/sec")
	f.Fuzz(func(t *testing.T, s string) {
		if r, ok := ParseRate(s); ok && r.MBs < 0 {
			t.Fatal(r)
		}
		if c, ok := ParseCompare(s); ok && c.Device == "" {
			t.Fatal(c)
		}
	})
}
