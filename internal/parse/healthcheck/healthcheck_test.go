package healthcheck

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	tests := []struct {
		name, in string
		want     Check
		ok       bool
	}{
		// Azure/azurehpc-health-checks on an 8x400G node (realworld-fresh57).
		{"azure ib bw passed", "SUCCESS:  nhc:  Health check passed:  check_ib_bw_gdr: IB write bandwidth test IB_WRITE_BW passed for IB=mlx5_ib3, IB BW=399.71 Gbps",
			Check{Tool: "nhc", Name: "check_ib_bw_gdr", Passed: true, Message: "IB write bandwidth test IB_WRITE_BW passed for IB=mlx5_ib3, IB BW=399.71 Gbps", Fabric: true, Gbps: 399.71}, true},
		{"nccl allreduce passed", "SUCCESS:  nhc:  Health check passed:  check_nccl_allreduce: NCCL all reduce bandwidth test passed, 480.318 GB/s",
			Check{Tool: "nhc", Name: "check_nccl_allreduce", Passed: true, Message: "NCCL all reduce bandwidth test passed, 480.318 GB/s"}, true},
		{"nhc failed", "ERROR:  nhc:  Health check failed:  check_hw_ib:  No IB port hfi1_0:1 is ACTIVE (LinkUp 100 Gb/sec).",
			Check{Tool: "nhc", Name: "check_hw_ib", Message: "No IB port hfi1_0:1 is ACTIVE (LinkUp 100 Gb/sec).", Fabric: true}, true},
		{"gpud passed", "✔ ibstat ports/rates check passed (at least ports: 8, rate: 400)",
			Check{Tool: "gpud", Name: "ibstat ports/rates", Passed: true, Message: "(at least ports: 8, rate: 400)", Fabric: true}, true},
		{"gpud failed", "✘ ibstat ports/rates check failed (at least ports: 8, rate: 400) (only 7 ports)",
			Check{Tool: "gpud", Name: "ibstat ports/rates", Message: "(at least ports: 8, rate: 400) (only 7 ports)", Fabric: true}, true},
		{"verdict and word disagree", "ERROR:  nhc:  Health check passed:  check_hw_ib: x", Check{}, false},
		{"empty check name", "SUCCESS:  nhc:  Health check passed:  ", Check{}, false},
		{"prose", "the nhc health check passed on all nodes", Check{}, false},
		{"gpud skipped", "✔ skipped ibstat check (infiniband class not found or ibstat not found)", Check{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Line(tc.in)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			got.Text = ""
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	in := "check_ib_bw_gdr:InfiniBand Pkey info:\nPKEY for mlx5_ib0: 0x8001\nSUCCESS:  nhc:  Health check passed:  check_ib_bw_gdr: IB write bandwidth test IB_WRITE_BW passed for IB=mlx5_ib0, IB BW=399.70 Gbps\n"
	cs, err := Parse(strings.NewReader(in), "f.txt", 10)
	if err != nil || len(cs) != 1 || cs[0].Line != 12 {
		t.Fatalf("Parse = %+v, %v; want one check on line 12", cs, err)
	}
	if _, err := Parse(strings.NewReader("PKEY for mlx5_ib0: 0x8001\n"), "f.txt", 3); err == nil || !strings.Contains(err.Error(), "f.txt") {
		t.Errorf("err = %v, want an error naming the file", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("SUCCESS:  nhc:  Health check passed:  check_ib_bw_gdr: IB write bandwidth test IB_WRITE_BW passed for IB=mlx5_ib3, IB BW=399.71 Gbps\n")
	f.Add("ERROR:  nhc:  Health check failed:  check_hw_ib:  No IB port hfi1_0:1 is ACTIVE (LinkUp 100 Gb/sec).\n")
	f.Add("✔ ibstat ports/rates check passed (at least ports: 8, rate: 400)\n")
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := Parse(strings.NewReader(s), "fuzz", 1)
		if err == nil && len(cs) == 0 {
			t.Fatal("no error and no check")
		}
	})
}
