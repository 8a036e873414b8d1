package host

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
)

// kmsg.module_load_failed: a module built for another kernel or RDMA
// stack, one finding per module. The ko2iblnd and LNet lines are from
// Seagate/cortx-motr#17 (analyze testdata/realworld-fresh29,
// syslog-cortxmotr17-ko2iblnd-symbol-mismatch-lnet-o2ib-fails.txt), the
// nv_peer_mem ones from Mellanox/nv_peer_memory#8 and #84; the others as
// kernel/module/main.c prints them.
func TestCheckModuleLoad(t *testing.T) {
	for _, tt := range []struct {
		name string
		log  []string
		want []string
	}{
		{"ko2iblnd against another RDMA stack, LNet o2ib down", []string{
			"LNetError: 172781:0:(api-ni.c:2533:lnet_startup_lndnet()) Can't load LND o2ib, module ko2iblnd, rc=256",
			"ko2iblnd: disagrees about version of symbol ib_fmr_pool_unmap",
			"ko2iblnd: Unknown symbol ib_fmr_pool_unmap (err -22)",
			"ko2iblnd: disagrees about version of symbol __ib_alloc_pd",
			"ko2iblnd: Unknown symbol __ib_alloc_pd (err -22)",
			"ko2iblnd: disagrees about version of symbol rdma_resolve_addr",
		}, []string{`kmsg.module_load_failed critical: kernel module ko2iblnd failed to load: it disagrees with the running kernel about the version of 3 symbols (ib_fmr_pool_unmap, __ib_alloc_pd, rdma_resolve_addr): it was built for another kernel or another RDMA stack (MLNX_OFED against the kernel's own, or another version) than the one running; Lustre's LNet could not start its o2ib network on it, so this node cannot reach Lustre over RDMA`}},
		{"LNet's line alone", []string{
			"LNetError: 172781:0:(api-ni.c:2533:lnet_startup_lndnet()) Can't load LND o2ib, module ko2iblnd, rc=256",
		}, []string{`kmsg.module_load_failed critical: Lustre's LNet could not load its o2ib network driver, module ko2iblnd (modprobe returned 256): LNet has no o2ib network`}},
		{"nv_peer_mem against the inbox ib_core, loaded twice", []string{
			"nv_peer_mem: Unknown symbol ib_register_peer_memory_client (err 0)",
			"nv_peer_mem: Unknown symbol ib_unregister_peer_memory_client (err 0)",
			"nv_peer_mem: Unknown symbol ib_register_peer_memory_client (err 0)",
			"nv_peer_mem: Unknown symbol ib_unregister_peer_memory_client (err 0)",
		}, []string{`kmsg.module_load_failed critical: kernel module nv_peer_mem failed to load: it needs 2 symbols nothing loaded exports (ib_register_peer_memory_client, ib_unregister_peer_memory_client): it was built for another kernel`}},
		{"two modules: two findings; an out-of-tree one is a warning", []string{
			"nvidia: version magic '5.4.0-42-generic SMP mod_unload ' should be '5.4.0-48-generic SMP mod_unload '",
			"vboxdrv: disagrees about version of symbol module_layout",
		}, []string{
			`kmsg.module_load_failed critical: kernel module nvidia failed to load: its version magic '5.4.0-42-generic SMP mod_unload ' should be '5.4.0-48-generic SMP mod_unload '`,
			`kmsg.module_load_failed warning: kernel module vboxdrv failed to load: it disagrees with the running kernel about the version of 1 symbol (module_layout)`,
		}},
		// BeeGFS client 7.4.6 built against the inbox RDMA stack under
		// DOCA-OFED (analyze testdata/realworld-fresh43,
		// journalctl-beegfs64-client-module-unknown-symbol-ib-doca-ofed.txt):
		// an RDMA consumer, critical.
		{"beegfs client against another RDMA stack: critical", []string{
			"beegfs: disagrees about version of symbol __ib_alloc_pd",
			"beegfs: Unknown symbol __ib_alloc_pd (err -22)",
			"beegfs: disagrees about version of symbol rdma_resolve_addr",
			"beegfs: Unknown symbol rdma_resolve_addr (err -22)",
		}, []string{`kmsg.module_load_failed critical: kernel module beegfs failed to load: it disagrees with the running kernel about the version of 2 symbols (__ib_alloc_pd, rdma_resolve_addr): it was built for another kernel or another RDMA stack (MLNX_OFED against the kernel's own, or another version) than the one running; the BeeGFS client's file system`}},
		{"an unknown module that needs RDMA core symbols: critical", []string{
			"mystor: Unknown symbol ib_register_client (err -22)",
		}, []string{`kmsg.module_load_failed critical: kernel module mystor failed to load: it needs 1 symbol nothing loaded exports (ib_register_client): it was built for another kernel or another RDMA stack (MLNX_OFED against the kernel's own, or another version) than the one running; it uses the kernel's RDMA core`}},
		{"an out-of-tree module without RDMA symbols stays a warning", []string{
			"zfs: disagrees about version of symbol kmem_cache_alloc",
		}, []string{`kmsg.module_load_failed warning: kernel module zfs failed to load`}},
		{"no symbol version: loaded all the same", []string{
			"nvidia: no symbol version for module_layout",
			"nvidia: module verification failed: signature and/or required key missing - tainting kernel",
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) { checkFindings(t, judge(checkModuleLoad, tt.log...), tt.want) })
	}
}

// The Lustre remedies go with Lustre's modules only; the module is
// named in the commands.
func TestModuleLoadRemedies(t *testing.T) {
	for _, tt := range []struct {
		line   string
		lustre bool
	}{
		{"ko2iblnd: Unknown symbol __ib_alloc_pd (err -22)", true},
		{"nv_peer_mem: Unknown symbol ib_register_peer_memory_client (err 0)", false},
	} {
		fs := checkModuleLoad(&Input{Snap: &snapshot.Snapshot{}, Kernel: logOf(tt.line)})
		if len(fs) != 1 {
			t.Fatalf("%q: %d findings", tt.line, len(fs))
		}
		mod, _, _ := strings.Cut(tt.line, ":")
		if !slices.ContainsFunc(fs[0].Remedy, func(r string) bool { return strings.Contains(r, "modinfo "+mod+" ") }) {
			t.Errorf("%q: no modinfo %s in %q", tt.line, mod, fs[0].Remedy)
		}
		got := slices.ContainsFunc(fs[0].Remedy, func(r string) bool { return strings.Contains(r, "--with-o2ib") })
		if got != tt.lustre {
			t.Errorf("%q: Lustre remedy %v, want %v: %q", tt.line, got, tt.lustre, fs[0].Remedy)
		}
		for _, r := range append(fs[0].Remedy, fs[0].Causes...) {
			if strings.Contains(r, "<module>") || strings.HasPrefix(r, "Lustre: ") {
				t.Errorf("%q: unfilled or marked %q", tt.line, r)
			}
		}
	}
}

// Read as a stream, a module's lines give the same finding: every
// symbol a module names is kept (one event per symbol), the repeats are
// counted.
func TestModuleLoadStreamed(t *testing.T) {
	var lines []string
	for round := 0; round < 20; round++ {
		for i := 0; i < 5; i++ {
			lines = append(lines, fmt.Sprintf("nv_peer_mem: disagrees about version of symbol sym%d", i),
				fmt.Sprintf("nv_peer_mem: Unknown symbol sym%d (err -22)", i))
		}
	}
	lines = append(lines, "LNetError: 172781:0:(api-ni.c:2533:lnet_startup_lndnet()) Can't load LND o2ib, module ko2iblnd, rc=256")
	l := logOf(lines...)
	whole := CheckPastedKernelLog(l, time.Time{}, 0)
	fold := NewKernelFolder()
	for _, e := range kmsg.Events(l.Records) {
		fold.Add(e)
	}
	streamed := CheckPastedKernelEvents(l.Source, fold.Events())
	if !slices.EqualFunc(streamed, whole, sameFinding) {
		t.Fatalf("streamed findings %+v, want %+v", streamed, whole)
	}
	if len(whole) != 2 || !strings.Contains(whole[0].Summary, "version of 5 symbols (sym0, sym1, sym2, …)") {
		t.Errorf("findings %+v", whole)
	}
}
