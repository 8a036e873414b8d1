package analyze

import (
	"slices"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestToolErrorPastes: the error a tool prints when it cannot run is the
// diagnosis of the paste, alone or among other outputs.
func TestToolErrorPastes(t *testing.T) {
	tests := []struct {
		name, text string
		kinds      []Kind
		want       []string
		exit       int
	}{
		// WukLab/LITE issue 5.
		{"ibv_devinfo ENOSYS", "$ ibv_devinfo\nFailed to get IB devices list: Function not implemented\n",
			[]Kind{KindToolError}, []string{"container.uverbs_missing/critical"}, 2},
		{"ibstat stat failed", "$ ibstat\nibpanic: [12345] main: stat of IB device 'mlx5_0' failed: No such file or directory\n",
			[]Kind{KindToolError}, []string{"port.missing/warning"}, 1},
		{"ibstat named device absent", "# ibstat mlx5_9\nibpanic: [12345] main: 'mlx5_9' IB device can't be found: No such file or directory\n",
			[]Kind{KindToolError}, []string{"port.missing/critical"}, 2},
		// siderolabs/docs pull 581.
		{"umad not loaded, tagged", "10.0.0.101: nvlsm: ibwarn: [15] umad_init: can't read ABI version from /sys/class/infiniband_mad/abi_version (No such file or directory): is ib_umad module loaded?\n",
			[]Kind{KindToolError}, []string{"container.umad_missing/warning"}, 1},
		{"ibnetdiscover without umad", "root@n1:~# ibnetdiscover\nibwarn: [3219] mad_rpc_open_port: can't open UMAD port ((null):0)\nibnetdiscover: iberror: failed: Failed to open '(null)' port '0'\n",
			[]Kind{KindToolError}, []string{"container.umad_missing/warning"}, 1},
		{"perftest bare line is not judged", "$ ib_write_bw\nFailed to get IB devices list\n",
			[]Kind{KindToolError}, nil, 3},
		// perftest src/perftest_resources.c ctx_find_dev, then write_bw.c.
		{"perftest found no device", "$ ib_write_bw -d mlx5_0\n Did not detect devices \n If device exists, check if driver is up\n Unable to find the Infiniband/RoCE device\n",
			[]Kind{KindToolError}, []string{"port.missing/critical"}, 2},
		// OSLL/ntb-cxl issue 90: ibv_devices lists the device, ibv_devinfo cannot open it.
		{"ibv_devinfo cannot open", "root@qemux86-64:/sys/kernel/debug# ibv_devinfo \nFailed to open device\n",
			[]Kind{KindToolError}, []string{"container.uverbs_missing/critical"}, 2},
		// Another program's failure: no tool error, but a line that says something failed.
		{"the same words under another command", "$ ./gamepad\nFailed to open device\n", nil, []string{"paste.failure_lines/warning"}, 1},
		{"the error between other outputs", "$ ibv_devinfo\nFailed to get IB devices list: Function not implemented\n$ ulimit -a\nmax locked memory       (kbytes, -l) 64\nopen files                      (-n) 1024\n",
			[]Kind{KindToolError, KindUlimit}, []string{"container.uverbs_missing/critical", "host.memlock_limited/critical"}, 2},
		{"prose quoting it is not a tool error", "We saw Failed to get IB devices list: Function not implemented on two nodes.\nThen it went away.\n",
			nil, nil, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tt.text, Options{})
			var kinds []Kind
			var fs []finding.Finding
			for _, s := range fr.Segments {
				if s.Kind != KindUnknown {
					kinds = append(kinds, s.Kind)
				}
				fs = append(fs, s.Findings...)
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("kinds %v, want %v", kinds, tt.kinds)
			}
			if got := ids(fs); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			if got := Run([]Input{{Name: "p.txt", Text: tt.text}}, Options{}).ExitCode; got != tt.exit {
				t.Errorf("exit %d, want %d", got, tt.exit)
			}
		})
	}
}
