package analyze

import (
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestNoDeviceAndLimitPastes: pastes of a host that cannot do RDMA by its
// own tools' words are judged: ibstatus' fatal error on a node without
// RDMA devices (clustervision/trinity#219), `ulimit -a` with a 64 KiB
// locked-memory limit (openucx/ucx#8229), in bash, zsh and dash, and
// /proc/<pid>/limits; an unlimited limit is healthy. Prose naming sysfs
// paths with shell variables is not an rdma output.
func TestNoDeviceAndLimitPastes(t *testing.T) {
	tests := []struct {
		name, text string
		kinds      []Kind
		want       []string
	}{
		{"ibstatus no device", "```\n[root@node045 ~]# ibstatus\nFatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)\n```\n\nReboot did not work\n",
			[]Kind{KindIBStatus}, []string{"port.missing/critical"}},
		{"ibv_devinfo no device", "```\n$ ibv_devinfo\nNo IB devices found\n```\n", []Kind{KindDevinfo}, []string{"port.missing/critical"}},
		{"ibv_devinfo device not found", "root@h:~# ibv_devinfo -d mlx5_4\nIB device 'mlx5_4' wasn't found\n", []Kind{KindDevinfo}, []string{"port.missing/critical"}},
		{"ulimit bash", "```\nulimit -a\ncore file size          (blocks, -c) 0\ndata seg size           (kbytes, -d) unlimited\nmax locked memory       (kbytes, -l) 64\nopen files                      (-n) 1024\n```\n",
			[]Kind{KindUlimit}, []string{"host.memlock_limited/critical"}},
		{"ulimit zsh", "$ ulimit -a\n-t: cpu time (seconds)              unlimited\n-l: locked-in-memory size (kbytes)  64\n-n: file descriptors                1024\n",
			[]Kind{KindUlimit}, []string{"host.memlock_limited/critical"}},
		{"ulimit dash unlimited", "time(seconds)        unlimited\nlocked memory(kbytes) unlimited\nnofiles              20000\n",
			[]Kind{KindUlimit}, nil},
		{"proc limits", "Limit                     Soft Limit           Hard Limit           Units\nMax cpu time              unlimited            unlimited            seconds\nMax locked memory         65536                65536                bytes\n",
			[]Kind{KindUlimit}, []string{"host.memlock_limited/critical"}},
		{"sysfs path in prose", "We trace nccl code and find that nccl tries to read file /sys/class/infiniband/$device/ports/$port_num/gid_attrs/types/$index which does not exist. Actually, its relative gid is 0000:0000:0000:0000:0000:0000:0000:0000 (cat /sys/class/infiniband/$device/ports/$port_num/gids/$index ).\n\nDEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\nmlx5_0\t1\t6\t0000:0000:0000:0000:0000:ffff:0a98:000c\t10.152.0.12  \tv1\tnet1\nmlx5_0\t1\t7\t0000:0000:0000:0000:0000:ffff:0a98:000c\t10.152.0.12  \tv2\tnet1\n",
			[]Kind{KindShowGIDs}, nil},
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
		})
	}
}

// TestMADErrorPastes: infiniband-diags messages that no SM/SA answers or
// that the MAD agent could not register (MrBr-github/lshca#68's report of
// failed commands) are an ibdiags-error segment: the SA message is
// fabric.sm_missing as a warning; the agent failure alone is not judged.
func TestMADErrorPastes(t *testing.T) {
	const lshca = "```\n#lshca.py -w ib -ow Dev=#1\nERROR - Following cmd returned and error message.\n" +
		"        CMD: smpquery -C mlx5_0 -P 1 NI -D  0,1\n" +
		"        Msg: ibwarn: [1685596] mad_rpc_open_port: client_register for mgmt 1 failed\n" +
		"ERROR - Following cmd returned and error message.\n" +
		"        CMD: saquery SMIR -C mlx5_0 -P 1 0\n" +
		"        Msg: ibwarn: [1685604] sa_get_handle: No SM/SA found on port :1\n" +
		"ibpanic: [1685604] main: Failed to bind to the SA: Success\n```\n"
	fr := AnalyzeText("p.txt", lshca, Options{})
	var fs []finding.Finding
	var kinds []Kind
	for _, s := range fr.Segments {
		if s.Kind != KindUnknown {
			kinds = append(kinds, s.Kind)
		}
		fs = append(fs, s.Findings...)
	}
	if !slices.Equal(kinds, []Kind{KindMADError}) || !slices.Equal(ids(fs), []string{"fabric.sm_missing/warning"}) || fs[0].Subject.Device != "mlx5_0" || fs[0].Evidence[0].Source != "p.txt:8" {
		t.Errorf("kinds %v findings %+v", kinds, fs)
	}
	fr = AnalyzeText("p.txt", "ibwarn: [1685596] mad_rpc_open_port: client_register for mgmt 1 failed\nsmpquery: iberror: failed: Failed to open 'mlx5_0' port '1'\n", Options{})
	if len(fr.Segments) != 1 || fr.Segments[0].Kind != KindMADError || len(fr.Segments[0].Findings) != 0 || !strings.Contains(fr.Segments[0].Empty, "could not register its MAD agent") {
		t.Errorf("segments %+v", fr.Segments)
	}
}
