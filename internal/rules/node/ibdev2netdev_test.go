package node

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/ibdev2netdev"
)

func TestCheckIBDev2Netdev(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"lone RoCE netdev down", "mlx5_3 port 1 ==> net1 (Down)\n", []string{"port.down/warning mlx5_3"}},
		// An IPoIB netdev Down is its port not ACTIVE or an interface
		// never brought up: a warning that says so (StepMesh issue 15,
		// analyze testdata/realworld-fresh23), and Up is an ACTIVE port.
		{"IPoIB netdevs down are worth a look", "mlx5_0 port 1 ==> ibp26s0 (Down)\nmlx5_1 port 1 ==> ib1 (Down)\n", []string{"port.down/warning mlx5_0", "port.down/warning mlx5_1"}},
		{"IPoIB netdev up", "mlx5_0 port 1 ==> ibs108 (Up)\n", nil},
		{"second port of a dual-port card", "mlx5_1 port 1 ==> enp27s0f0np0 (Up)\nmlx5_2 port 1 ==> enp27s0f1np1 (Down)\n", nil},
		// linux-rdma 2019-10-28 "qperf failure" (analyze testdata/realworld-fresh22): an
		// ib2netdev alias that adds the IP, on host A then host B, whose second port is up.
		{"second port down where another card has it up", "mlx5_0 port 1 ==> ens261f0 (Up) 173.168.100.103\nmlx5_1 port 1 ==> ens261f1 (Down) \n" +
			"mlx5_0 port 1 ==> ens801f0 (Up) 173.168.100.101\nmlx5_1 port 1 ==> ens801f1 (Up) 192.168.100.101\n", []string{"port.down/warning mlx5_1"}},
		{"second ports of two cards down", "mlx5_1 port 1 ==> enp27s0f0np0 (Up)\nmlx5_2 port 1 ==> enp27s0f1np1 (Down)\n" +
			"mlx5_7 port 1 ==> enp157s0f0np0 (Up)\nmlx5_8 port 1 ==> enp157s0f1np1 (Down)\n", nil},
		{"both ports of a card down", "mlx5_0 port 1 ==> ens4f0 (Down)\nmlx5_1 port 1 ==> ens4f1 (Down)\nmlx5_2 port 1 ==> ens6 (Up)\n",
			[]string{"port.down/warning mlx5_0", "port.down/warning mlx5_1"}},
		{"-v: IB port ACTIVE, IPoIB down", "0000:02:00.1 mlx5_1 (MT4115 - MT1523X04353) CX456A - ConnectX-4 QSFP fw 12.23.1020 port 1 (ACTIVE) ==> ib1 (Down)\n", nil},
		{"-v: IB port DOWN", "0000:02:00.0 mlx5_0 (MT4115 - X) CX456A fw 12.23.1020 port 1 (DOWN  ) ==> ib0 (Down)\n", []string{"port.down/warning mlx5_0"}},
		{"-v: IB port INIT", "0000:02:00.0 mlx5_0 (MT4115 - X) CX456A fw 12.23.1020 port 1 (INIT  ) ==> ib0 (Up)\n", []string{"port.init_no_sm/critical mlx5_0"}},
		{"-v: VFs of a working PF", "0000:4b:00.0 mlx5_2 (MT4119 - MCX515A-CCAT) CX515A fw 16.27.1016 port 1 (ACTIVE) ==> ens6 (Up)\n" +
			"0000:4b:00.1 mlx5_6 (MT4120 - NA)  fw 16.27.1016 port 1 (DOWN  ) ==> ens6f1 (Down)\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ibdev2netdev.Parse(strings.NewReader(tt.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			fs, _ := CheckIBDev2Netdev(m, "p.txt")
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s/%s %s", f.ID, f.Severity, f.Subject.Device))
				if len(f.Evidence) != 1 || !strings.HasPrefix(f.Evidence[0].Source, "p.txt:") {
					t.Errorf("evidence %+v", f.Evidence)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The real samples of the parser's corpus: VFs of working PFs and second
// ports are notes; a card with no port up is a warning per port.
func TestCheckIBDev2NetdevCorpus(t *testing.T) {
	for _, tt := range []struct {
		file  string
		want  []string
		notes int
	}{
		{"sriov-roce-v.txt", nil, 4},
		{"sriov-ib-v.txt", nil, 4},
		{"cx4lx-cx5-v.txt", []string{"port.down/warning", "port.down/warning"}, 3},
	} {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("../../parse/ibdev2netdev/testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := ibdev2netdev.Parse(f, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			fs, notes := CheckIBDev2Netdev(m, tt.file)
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s/%s", f.ID, f.Severity))
			}
			if !slices.Equal(got, tt.want) || len(notes) != tt.notes {
				t.Errorf("got %q and %d notes, want %q and %d", got, len(notes), tt.want, tt.notes)
			}
		})
	}
}
