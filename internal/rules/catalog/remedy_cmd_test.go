package catalog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// toolOptions are the real options of the tools that remedies name, short
// and long. Sources:
//   - infiniband-diags 44.0 (rdma-core infiniband-diags/man/*.rst): the
//     "Options:" list each tool prints with --help;
//   - ibstatus: the infiniband-diags script's usage ("[-h] [devname[:portnum]]");
//   - mlxlink: mstflint mlxlink/modules/mlxlink_commander.h, the *_FLAG and
//     *_FLAG_SHORT defines (there is no --show_ber: per-lane errors and BER
//     are -c/--show_counters, the module -m/--show_module);
//   - mlxconfig: mstflint mlxconfig/mlxcfg_parser.cpp; mstflint: flint/cmd_line_parser.cpp;
//   - perftest: src/perftest_parameters.c long_options and getopt string;
//   - nccl-tests: src/common.cu longopts;
//   - iproute2 ip(8) and rdma(8), iputils ping(8), ethtool(8), nvidia-smi(1), mlnx_qos and
//     cma_roce_mode (MLNX_OFED) usage, pciutils lspci(8) and setpci(8), util-linux dmesg(1);
//   - ucx_info: UCX src/tools/info/ucx_info.c, its getopt string;
//   - mpirun and ompi_info: Open MPI's mpirun(1) and ompi_info(1);
//   - edac-util (edac-utils) and ras-mc-ctl (rasdaemon): their man pages;
//   - lnetctl: Lustre lnet/utils/lnetctl.c, its option tables;
//   - nvme: nvme-cli's nvme-connect(1), nvme-discover(1), nvme-list-subsys(1).
//
// Tools whose options are not checked (grep, kill, ...) still end the
// previous command, so their flags are never taken for that command's.
var toolOptions = map[string]string{
	// OpenSM 3.3 (opensm --help).
	"opensm":        "-c --create-config -F --config -R --routing_engine -o --once -Q --qos -Y --qos_policy_file -U --lfts_file -g --guid -p --priority -s --sweep -B --daemon -f --log_file -e --erase_log_file -v --verbose -V --version -h --help -P --Pconfig -a --root_guid_file --lmc --console --console-port",
	"ibportstate":   "-z --config -C --Ca -P --Port -D --Direct -L --Lid -G --Guid -t --timeout -s --sm_port -K --show_keys -y --m_key -e --errors -v --verbose -d --debug -h --help -V --version",
	"perfquery":     "-x --extended -X --xmtsl -S --rcvsl -D --xmtdisc -E --rcverr -T --extended_speeds --oprcvcounters --flowctlcounters --vloppackets --vlopdata --vlxmitflowctlerrors --vlxmitcounters --swportvlcong --rcvcc --slrcvfecn --slrcvbecn --xmitcc --vlxmittimecc -c --smplctl -a --all_ports -l --loop_ports -r --reset_after_read -R --Reset_only -z --config -C --Ca -P --Port -L --Lid -G --Guid -t --timeout -s --sm_port -y --m_key -e --errors -v --verbose -d --debug -h --help -V --version",
	"ibqueryerrors": "-s --suppress -c --suppress-common --node-name-map -G --port-guid -D --Direct --skip-sl -r --report-port --threshold-file -R --GNDN --data --switch --ca --router --details --counters -k --clear-errors -K --clear-counts --load-cache -o --outstanding_smps -z --config -C --Ca -P --Port -t --timeout -y --m_key -e --errors -v --verbose -d --debug -h --help -V --version",
	"iblinkinfo":    "--node-name-map -S --switch -G --port-guid -D --Direct -a --all -n --hops -d --down -l --line -p --additional --load-cache --diff --diffcheck --filterdownports -o --outstanding_smps --switches-only --cas-only -z --config -C --Ca -P --Port -t --timeout -s --sm_port -y --m_key -e --errors -v --verbose -h --help -V --version",
	"ibstat":        "-l --list_of_cas -s --short -p --port_list -z --config -v --verbose -d --debug -h --help -V --version",
	"ibstatus":      "-h",
	"ibnetdiscover": "-f --full -s --show -l --list -g --grouping -H --Hca_list -S --Switch_list -R --Router_list --node-name-map --cache --load-cache --diff --diffcheck -p --ports -m --max_hops -o --outstanding_smps -z --config -C --Ca -P --Port -t --timeout -y --m_key -e --errors -v --verbose -d --debug -h --help -V --version",
	"ibtracert":     "-f --force -n --no_info -m --mlid --node-name-map --ports-file -z --config -C --Ca -P --Port -L --Lid -G --Guid -t --timeout -s --sm_port -y --m_key -e --errors -v --verbose -d --debug -h --help -V --version",
	"sminfo":        "-s --state -p --priority -a --activity -z --config -C --Ca -P --Port -D --Direct -L --Lid -G --Guid -t --timeout -y --m_key -e --errors -v --verbose -d --debug -h --help -V --version",
	"saquery":       "-p -N -L -l -G -O -U -s -g -m -x -c -S -I -D --list --src-to-dst --sgid-to-dgid --node-name-map --smkey --slid --dlid --mlid --sgid --dgid --gid --mgid -r --reversible -n --numb_path --pkey -Q --qos_class --sl -M --mtu -R --rate --pkt_lifetime -q --qkey -T --tclass -F --flow_label -H --hop_limit --scope -J --join_state -X --proxy_join --service_id -z --config -C --Ca -P --Port -t --timeout -K --show_keys -e --errors -v --verbose -d --debug -h --help -V --version",
	"smpquery":      "-c --combined --node-name-map -x --extended -z --config -C --Ca -P --Port -D --Direct -L --Lid -G --Guid -t --timeout -s --sm_port -K --show_keys -y --m_key -e --errors -v --verbose -d --debug -h --help -V --version",
	"dump_fts":      "-a --all -n --no_dests -M --Multicast --node-name-map -z --config -C --Ca -P --Port -t --timeout -y --m_key -e --errors -v --verbose -d --debug -h --help -V --version",
	"mlxlink":       "-h --help -v --version -d --device -p --port --port_type --depth --pcie_index --node --json --extended --show_links -m --show_module -c --show_counters -e --show_eye --show_fec --show_serdes_tx --show_device --show_ber_monitor --show_external_phy --show_plr --show_kr --show_rx_recovery_counters -a --port_state --module_state -s --speeds -l --loopback -k --fec --fec_speed --serdes_tx --serdes_tx_lane --test_mode -b --ber_collect --amber_collect --pc --cable --dump --ddm --read --write --page --offset --length --margin --rx_fec_histogram --show_histogram --clear_histogram --log",
	"mlxconfig":     "-v --version -h --help -d --dev -t --device_type -b --db -j --json_format -yy --yyes -y --yes -f --file -e --enable_verbosity -a --all_attrs --host_id --pf_index --with_default -p --private_key -u --key_uuid -eng --openssl_engine -k --openssl_key_id -tkn --token_type --force",
	"mstflint":      "-d --device --guid --guids --mac --macs --uid --blank_guids --clear_semaphore -h --help --hh -i --image --qq --low_cpu --nofs --allow_psid_change --allow_rom_change --override_cache_replacement --ocr --no_flash_verify -s --silent -y --yes --no --vsd --use_image_ps --use_image_guids --use_image_rom --ignore_dev_data --dual_image --striped_image --banks --log --flash_params -v --version --no_devid_check --use_fw",
	"mlxfwmanager":  "-d --dev -h --help -v --version --query --query-format -u --update -i --image-file -D --image-dir -f --force -y --yes --online --online-query-psid --download -l --list-content --ssl-certificate --no-progress -o --outfile --log --log-file",
	"ib_write_bw":   perftestOptions,
	"ib_write_lat":  perftestOptions,
	"ib_read_bw":    perftestOptions,
	"ib_send_bw":    perftestOptions,
	"rping":         "-s -c -v -V -d -S -C -a -I -p -P -q", // rdma-core librdmacm/examples/rping.c usage
	// nccl-tests (all_reduce_perf and its siblings share common.cu).
	"all_reduce_perf": "-t --nthreads -g --ngpus -b --minbytes -e --maxbytes -i --stepbytes -f --stepfactor -n --iters -m --agg_iters -w --warmup_iters -N --run_cycles -p --parallel_init -c --check -o --op -d --datatype -r --root -z --blocking -y --stream_null -T --timeout -G --cudagraph -C --report_cputime -a --average -R --local_register -h --help",
	"ip":              "-V -Version -h -human -b -batch -force -s -stats -statistics -d -details -l -loops -f -family -4 -6 -B -0 -M -o -oneline -r -resolve -n -netns -N -Numeric -a -all -c -color -t -timestamp -ts -tshort -rc -rcvbuf -iec -br -brief -j -json -p -pretty",
	// nvme-cli 2.x nvme-connect(1), nvme-discover(1), nvme-list-subsys(1).
	"nvme": "-t --transport -a --traddr -s --trsvcid -n --nqn -w --host-traddr -q --hostnqn -I --hostid -o --output-format -v --verbose",
	// iputils ping(8): -I names the interface to send from.
	"ping":          "-I -c -W -w -M -s -4 -6",
	"rdma":          "-V -Version -d -details -dd -j -json -p -pretty -f -force -b -batch -n -no-nice-names -r -raw",
	"ethtool":       "-a --show-pause -A --pause -c --show-coalesce -C --coalesce -g --show-ring -G --set-ring -k --show-features --show-offload -K --features --offload -i --driver -d --register-dump -e --eeprom-dump -E --change-eeprom -r --negotiate -p --identify -t --test -S --statistics --phy-statistics -n -u --show-nfc --show-ntuple -N -U --config-nfc --config-ntuple -T --show-time-stamping -x --show-rxfh-indir --show-rxfh -X --set-rxfh-indir --rxfh -f --flash -P --show-permaddr -w --get-dump -W --set-dump -l --show-channels -L --set-channels --show-priv-flags --set-priv-flags -m --dump-module-eeprom --module-info --show-eee --set-eee --show-fec --set-fec -Q --per-queue --show-module --set-module -I --include-statistics --all-groups --groups --json --debug -s --change -h --help --version",
	"nvidia-smi":    "-h --help -L --list-gpus -B --list-excluded-gpus -q --query -u --unit -i --id -f --filename -x --xml-format --dtd -d --display -l --loop -lms --loop-ms --query-gpu --query-supported-clocks --query-compute-apps --format -pm --persistence-mode -e --ecc-config -p --reset-ecc-errors -c --compute-mode -r --gpu-reset -m",
	"mlnx_qos":      "-h --help -v --version -f --pfc -p --prio_tc -s --tsa -t --tcbw -r --ratelimit -d --dcbx -i --interface --trust --dscp2prio --prio2buffer --buffer_size --cable_len -c --cable_len -a",
	"cma_roce_mode": "-h -d -p -m",
	"setpci":        "-v -f -D -r -A -O -H1 -H2 -G -s -d --version --help --dumpregs",
	"lspci":         "-m -mm -t -v -vv -vvv -k -x -xxx -xxxx -b -D -P -PP -n -nn -q -qq -Q -s -d -i -p -A -H -F -G -O",
	"dmesg":         "-C --clear -c --read-clear -D --console-off -E --console-on -F --file -f --facility -H --human -J --json -k --kernel -L --color -l --level -n --console-level -P --nopager -p --force-prefix -r --raw -S --syslog -s --buffer-size -T --ctime -t --notime -u --userspace -w --follow -W --follow-new -x --decode -h --help -V --version",
	"ibv_devinfo":   "-d --ib-dev -i --ib-port -l --list -v --verbose -h --help",
	"ibdev2netdev":  "-v",
	"ulimit":        "-H -S -a -c -d -e -f -i -l -m -n -p -q -r -s -t -u -v -x",
	// Open MPI mpirun(1) (4.x orterun, 5.x prterun): the options remedies use.
	"mpirun": "--mca -mca -np -n -H --host -x --hostfile -hostfile --tag-output --bind-to --map-by",
	// rdma-core libibverbs/examples (rc_pingpong.c and its siblings).
	"ibv_rc_pingpong":  pingpongOptions,
	"ibv_uc_pingpong":  pingpongOptions,
	"ibv_ud_pingpong":  pingpongOptions,
	"ibv_srq_pingpong": pingpongOptions,
	// PyTorch torch/distributed/run.py; Slurm srun(1).
	"torchrun":  "--nproc_per_node --nproc-per-node --nnodes --node_rank --node-rank --master_addr --master-addr --master_port --master-port --rdzv_backend --rdzv-backend --rdzv_endpoint --rdzv-endpoint --rdzv_id --rdzv-id --standalone",
	"srun":      "-N --nodes -n --ntasks --ntasks-per-node --gpus --gpus-per-task --gpus-per-node --gpu-bind --gres --mpi --cpu-bind -w --nodelist",
	"ompi_info": "-a --all -c --config -h --help --parsable --param -v --version",
	// UCX src/tools/info/ucx_info.c getopt string.
	"ucx_info": "-f -a -h -v -c -6 -y -d -b -s -w -p -e -C -F -t -n -u -D -P -m -N -A -T -M",
	// Lustre lnet/utils/lnetctl.c: the long options of "peer show" and "net show".
	"lnetctl":    "--nid --verbose --net",
	"journalctl": "-u --unit -b --boot -k --dmesg -f --follow -n --lines -S --since -U --until -p --priority -o --output",
	"docker":     "--device --ulimit --cap-add --privileged --network --ipc --shm-size --rm -it -i -t",
	"curl":       "-H --header -s --silent -f --fail -k --insecure -X --request -d --data -o --output",
	"ls":         "-l -la -d -a -1",
	// GNU coreutils readlink(1): -f canonicalizes through every link.
	"readlink": "-f -e -m -n",
	// Lustre's configure (lnet/autoconf/lustre-lnet.m4 LN_CONFIG_O2IB): --with-o2ib names the OFED kernel headers.
	"./configure": "--with-o2ib",
	// ROCm SMI (rocm_smi.py): --showtopo prints the GPUs' links, weights and hops.
	"rocm-smi": "--showtopo",
	// Huawei Ascend hccn_tool (the NPU network tool's documented forms
	// "hccn_tool -i 0 -link -g", "-net_health -g", "-ping -g address IP").
	"hccn_tool": "-i -link -net_health -ping -g -s -ip -tls",
	// Unchecked: their flags are theirs, and they end the previous command.
	"grep": "*", "kill": "*", "modinfo": "*", "ofed_info": "*", "systemctl": "*", "modprobe": "*", "cat": "*", "ibdoctor": "*",

	// libfabric fi_info(1); fabtests fi_pingpong(1).
	"fi_info":     "-n --node -P --port -c --caps -m --mode -t --ep_type -a --addr_format -p --provider -d --domain -f --fabric -e --env -l --list -v --verbose --version -h --help",
	"fi_pingpong": "-B -P -d -e -p -I -S -c -v -h -6",

	// edac-utils edac-util(8); rasdaemon ras-mc-ctl(8).
	"edac-util":  "-h --help -q --quiet -v --verbose -s --status -r --report",
	"ras-mc-ctl": "--quiet --mainboard --status --print-labels --guess-labels --register-labels --delay --errors --error-count --summary --layout --help",
}

const pingpongOptions = "-p --port -d --ib-dev -i --ib-port -s --size -m --mtu -r --rx-depth -n --iters -l --sl -e --events -g --gid-idx -o --odp -O --iodp -P --prefetch -t --ts -c --chk -j --dm -N --new_send -q --num-srq"

const perftestOptions = "-p --port -d --ib-dev -i --ib-port -m --mtu -s --size -n --iters -t --tx-depth -u --qp-timeout -S --sl -x --gid-index -a --all -F --CPU-freq -c --connection -q --qp -e --events -X --vector -I --inline_size -o --outs -g --mcg -z --comm_rdma_cm -R --rdma_cm -T --tos -L --hop_limit -h --help -M --MGID -r --rx-depth -b --bidirectional -Q --cq-mod -N --noPeak -V --version -C --report-cycles -H --report-histogrm -U --report-unsorted -A --atomic_type -O --dualport -l --post_list -D --duration -f --margin -w --limit_bw -y --limit_msgrate --report_gbits --use_cuda --use_cuda_bus_id --use_cuda_dmabuf --use_rocm --tclass --flow_label --pkey_index --output --cpu_util --out_json --out_json_file --run_infinitely --use-srq --odp --use_hugepages --perform_warm_up"

// command is one tool invocation found in a remedy: the tool and the
// flag-looking tokens that follow it up to the end of the command.
type command struct {
	tool  string
	flags []string
}

var attachedValue = regexp.MustCompile(`^(-[A-Za-z])[0-9]+$`) // grep -A4

// commands extracts the commands of a remedy. A command starts at a known
// tool name and ends at "|", ";", "&&", "||", a token ending in ";", or the
// next tool name; flags are the tokens starting with "-" in between.
// Flags outside any command are returned as orphans: a remedy must name
// the tool whose flags it gives ("rerun with -q 4" cannot be pasted).
func commands(remedy string) (cmds []command, orphans []string) {
	var cur *command
	end := func() {
		if cur != nil {
			cmds = append(cmds, *cur)
			cur = nil
		}
	}
	for _, tok := range strings.Fields(remedy) {
		switch tok {
		case "|", ";", "&&", "||":
			end()
			continue
		}
		name := strings.Trim(tok, "(`'\",;:)")
		if _, ok := toolOptions[name]; ok && !strings.Contains(tok, "=") {
			end()
			cur = &command{tool: name}
		} else if f := strings.Trim(tok, "(),;:`"); len(f) > 1 && f[0] == '-' && f[1] != '-' && !isLetter(f[1]) {
			// "-1", "-e" vs "->": not a flag
		} else if len(f) > 1 && f[0] == '-' {
			f, _, _ = strings.Cut(f, "=")
			if m := attachedValue.FindStringSubmatch(f); m != nil {
				f = m[1]
			}
			if cur == nil {
				orphans = append(orphans, f)
			} else {
				cur.flags = append(cur.flags, f)
			}
		}
		if strings.HasSuffix(tok, ";") {
			end()
		}
	}
	end()
	return cmds, orphans
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// checkRemedy returns what is wrong with the commands of one remedy.
func checkRemedy(remedy string) []string {
	var bad []string
	cmds, orphans := commands(remedy)
	for _, o := range orphans {
		bad = append(bad, "flag "+o+" belongs to no named tool")
	}
	for _, c := range cmds {
		opts := toolOptions[c.tool]
		if opts == "*" {
			continue
		}
		known := strings.Fields(opts)
		for _, f := range c.flags {
			if !slices.Contains(known, f) {
				bad = append(bad, c.tool+" has no option "+f)
			}
		}
	}
	return bad
}

// The checker itself: it must reject what the catalogue used to print.
func TestCheckRemedyRejectsWrongFlags(t *testing.T) {
	for _, tt := range []struct {
		remedy string
		bad    bool
	}{
		{"mlxlink -d <pci> --show_ber to see per-lane errors", true},
		{"mlxlink -d <pci> -c to see the per-lane errors and BER", false},
		{"mlxlink -d <pci> -m -c to read module and error counters", false},
		{"sminfo -P against each SM LID", false}, // -P is a real (CA port) option
		{"sminfo --lid 3", true},
		{"rerun with -q 4 and a larger -s to rule out the test itself", true},
		{"rerun ib_write_bw with -q 4 and a larger -s (e.g. -s 1048576)", false},
		{"ibportstate -C <dev> -P <port> -D 0 <port> reset", false},
		{"ibportstate --reset <lid> <port>", true},
		{"perfquery -x -R -C <dev> -P <port>", false},
		{"ethtool -S <netdev> | grep -A4 -E 'pause|discard'", false},
		{"ethtool --stats <netdev>", true},
		{"sminfo and saquery -s to see which SMs run", false},
		{"lspci -vvv -s <pci> | grep -E 'x'", false},
		{"docker: --ulimit memlock=-1:-1", false},
		{"container --ulimit memlock=-1", true},
		{"ip -br link", false},
		{"nvidia-smi topo -m", false},
		{"cma_roce_mode -d <dev> -p <port> -m 2", false},
		{"cma_roce_mode -d <dev> -P <port>", true},
	} {
		if got := checkRemedy(tt.remedy); (len(got) > 0) != tt.bad {
			t.Errorf("%q: problems %q, want bad=%v", tt.remedy, got, tt.bad)
		}
	}
}

// Every remedy of the catalogue (and the explanations of unknown
// placeholders, which name commands too) runs as printed: each command's
// flags exist in the tool's current release.
func TestRemediesUseRealFlags(t *testing.T) {
	for _, m := range Default.All() {
		for _, r := range m.Remedy {
			for _, b := range checkRemedy(r) {
				t.Errorf("%s: remedy %q: %s", m.ID, r, b)
			}
		}
	}
	for name, how := range finding.Placeholders {
		for _, b := range checkRemedy(how) {
			t.Errorf("placeholder <%s>: %q: %s", name, how, b)
		}
	}
}

// Remedies written in rule code (a Remedy field or assignment with string
// literals anywhere under internal/rules) obey the same table.
func TestRuleCodeRemediesUseRealFlags(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		var lits []*ast.BasicLit
		collect := func(e ast.Node) {
			ast.Inspect(e, func(x ast.Node) bool {
				if bl, ok := x.(*ast.BasicLit); ok && bl.Kind == token.STRING {
					lits = append(lits, bl)
				}
				return true
			})
		}
		isRemedy := func(e ast.Expr) bool {
			switch x := e.(type) {
			case *ast.Ident:
				return x.Name == "Remedy"
			case *ast.SelectorExpr:
				return x.Sel.Name == "Remedy"
			}
			return false
		}
		ast.Inspect(f, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.KeyValueExpr:
				if isRemedy(x.Key) {
					collect(x.Value)
				}
			case *ast.AssignStmt:
				for i, l := range x.Lhs {
					if isRemedy(l) && i < len(x.Rhs) {
						collect(x.Rhs[i])
					}
				}
			case *ast.ValueSpec:
				for _, id := range x.Names {
					if strings.HasPrefix(id.Name, "remedy") {
						for _, v := range x.Values {
							collect(v)
						}
					}
				}
			}
			return true
		})
		for _, bl := range lits {
			s, err := strconv.Unquote(bl.Value)
			if err != nil {
				continue
			}
			n++
			for _, b := range checkRemedy(s) {
				t.Errorf("%s: remedy %q: %s", fset.Position(bl.Pos()), s, b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("found only %d remedy literals under internal/rules; the walk is broken", n)
	}
}
