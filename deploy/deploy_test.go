package deploy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ibdoctor/ibdoctor/internal/cli"
	agentcmd "github.com/ibdoctor/ibdoctor/internal/cli/agent"
	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/output/metrics"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	"github.com/ibdoctor/ibdoctor/internal/testenv"
)

func TestPromtoolCheckRules(t *testing.T) {
	promtool := testenv.NeedTool(t, "promtool")
	out, err := exec.Command(promtool, "check", "rules", "prometheus/ibdoctor-rules.yml").CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
}

func TestPromtoolTestRules(t *testing.T) {
	promtool := testenv.NeedTool(t, "promtool")
	cmd := exec.Command(promtool, "test", "rules", "ibdoctor-rules.test.yml")
	cmd.Dir = "prometheus"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
}

// exported is every metric name the agent serves.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, n := range metrics.Families() {
		names[n] = true
	}
	return names
}

var metricRef = regexp.MustCompile(`\bibdoctor_[a-z0-9_]+`)

func checkRefs(t *testing.T, where string, exprs []string) {
	t.Helper()
	names := exported(t)
	seen := 0
	for _, e := range exprs {
		for _, m := range metricRef.FindAllString(e, -1) {
			seen++
			if !names[m] {
				t.Errorf("%s references %s, which the agent does not export (in %q)", where, m, e)
			}
		}
	}
	if seen == 0 {
		t.Errorf("%s references no ibdoctor metric", where)
	}
}

func TestAlertRulesUseExportedMetrics(t *testing.T) {
	data, err := os.ReadFile("prometheus/ibdoctor-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []struct {
			Name  string
			Rules []struct {
				Alert  string
				Expr   string
				Labels map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
			if sev := r.Labels["severity"]; sev != "warning" && sev != "critical" {
				t.Errorf("%s: severity label %q", r.Alert, sev)
			}
		}
	}
	checkRefs(t, "prometheus/ibdoctor-rules.yml", exprs)
}

func TestGrafanaDashboard(t *testing.T) {
	data, err := os.ReadFile("grafana/ibdoctor.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title      string
		UID        string `json:"uid"`
		Templating struct {
			List []struct{ Name string }
		}
		Panels []struct {
			Title   string
			Type    string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("grafana/ibdoctor.json: %v", err)
	}
	if dash.UID == "" || dash.Title == "" {
		t.Error("dashboard needs a uid and a title")
	}
	var vars []string
	for _, v := range dash.Templating.List {
		vars = append(vars, v.Name)
	}
	if !slices.Contains(vars, "instance") || !slices.Contains(vars, "datasource") {
		t.Errorf("template variables %v: want instance and datasource", vars)
	}
	var exprs, titles []string
	for _, p := range dash.Panels {
		titles = append(titles, p.Title)
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, want := range []string{"Fleet overview", "Active findings", "Per-port traffic", "Per-port errors", "RoCE"} {
		if !slices.Contains(titles, want) {
			t.Errorf("dashboard lacks %q", want)
		}
	}
	checkRefs(t, "grafana/ibdoctor.json", exprs)
}

// agentFlags are the long flags of `ibdoctor agent`.
func agentFlags() map[string]bool {
	f := &cmdutil.Factory{Out: io.Discard, ErrOut: io.Discard, Getenv: func(string) string { return "" }}
	cmd := agentcmd.NewCmd(f, nil)
	out := map[string]bool{}
	for _, n := range []string{"root", "listen", "interval", "expect", "state-dir", "token", "config", "format"} {
		if cmd.Flags().Lookup(n) != nil {
			out[n] = true
		}
	}
	return out
}

var longFlag = regexp.MustCompile(`--([a-z][a-z-]*)`)

func checkFlags(t *testing.T, where, args string) {
	t.Helper()
	known := agentFlags()
	for _, m := range longFlag.FindAllStringSubmatch(args, -1) {
		if !known[m[1]] {
			t.Errorf("%s passes --%s, which ibdoctor agent does not have", where, m[1])
		}
	}
}

func TestSystemdUnit(t *testing.T) {
	f, err := os.Open("systemd/ibdoctor-agent.service")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sections := map[string]map[string]string{}
	var cur string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		switch {
		case s == "" || strings.HasPrefix(s, "#"):
		case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
			cur = s[1 : len(s)-1]
			sections[cur] = map[string]string{}
		default:
			k, v, ok := strings.Cut(s, "=")
			if !ok || cur == "" {
				t.Fatalf("ibdoctor-agent.service:%d: not a key=value in a section: %q", line, s)
			}
			sections[cur][k] = v
		}
	}
	for _, sec := range []string{"Unit", "Service", "Install"} {
		if sections[sec] == nil {
			t.Errorf("no [%s] section", sec)
		}
	}
	exec := sections["Service"]["ExecStart"]
	if !strings.HasPrefix(exec, "/usr/bin/ibdoctor agent ") {
		t.Errorf("ExecStart %q does not run the agent", exec)
	}
	checkFlags(t, "ExecStart", exec)
	if !strings.Contains(exec, "--state-dir ${STATE_DIRECTORY}") || sections["Service"]["StateDirectory"] == "" {
		t.Error("state must live in the unit's StateDirectory")
	}
	if sections["Service"]["KillSignal"] != "SIGTERM" || sections["Install"]["WantedBy"] != "multi-user.target" {
		t.Errorf("service/install settings: %v %v", sections["Service"], sections["Install"])
	}
}

func TestKubernetesDaemonSet(t *testing.T) {
	data, err := os.ReadFile("kubernetes/ibdoctor-agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type volumeMount struct {
		Name      string
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	}
	type probe struct {
		HTTPGet struct{ Path string } `yaml:"httpGet"`
	}
	var ds struct {
		Kind string
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Args            []string
						ReadinessProbe  probe `yaml:"readinessProbe"`
						LivenessProbe   probe `yaml:"livenessProbe"`
						SecurityContext struct {
							Privileged *bool `yaml:"privileged"`
						} `yaml:"securityContext"`
						VolumeMounts []volumeMount `yaml:"volumeMounts"`
					}
					Volumes []struct {
						Name     string
						HostPath *struct{ Path string } `yaml:"hostPath"`
					}
				}
			}
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	found := false
	for {
		var node yaml.Node
		if err := dec.Decode(&node); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("kubernetes/ibdoctor-agent.yaml: %v", err)
		}
		var kind struct{ Kind string }
		if err := node.Decode(&kind); err != nil {
			t.Fatal(err)
		}
		if kind.Kind == "DaemonSet" {
			if err := node.Decode(&ds); err != nil {
				t.Fatal(err)
			}
			found = true
		}
	}
	if !found || len(ds.Spec.Template.Spec.Containers) != 1 {
		t.Fatal("no DaemonSet with one container")
	}
	c := ds.Spec.Template.Spec.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "agent" {
		t.Errorf("args %v do not run the agent", c.Args)
	}
	checkFlags(t, "DaemonSet args", strings.Join(c.Args, " "))
	if c.SecurityContext.Privileged == nil || *c.SecurityContext.Privileged {
		t.Error("the agent must not run privileged")
	}
	if c.ReadinessProbe.HTTPGet.Path != "/api/v1/health" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("probes %q %q", c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}
	hostPaths := map[string]string{}
	for _, v := range ds.Spec.Template.Spec.Volumes {
		if v.HostPath != nil {
			hostPaths[v.Name] = v.HostPath.Path
		}
	}
	mounts := map[string]volumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[hostPaths[m.Name]] = m
	}
	if m, ok := mounts["/sys"]; !ok || !m.ReadOnly || !slices.Contains(c.Args, "--root=/host") || m.MountPath != "/host/sys" {
		t.Errorf("/sys must be mounted read-only at the agent's --root: %+v", m)
	}
	if m, ok := mounts["/dev/infiniband"]; !ok || m.MountPath != "/host/dev/infiniband" {
		t.Errorf("/dev/infiniband not mounted under the root: %+v", m)
	}
}

// TestMain lets the test binary act as ibdoctor when IBDOCTOR_AS_CLI is
// set, so the NHC script runs the real command line under a real bash.
func TestMain(m *testing.M) {
	if os.Getenv("IBDOCTOR_AS_CLI") == "1" {
		os.Exit(cli.Main("test", os.Args[1:]))
	}
	os.Exit(m.Run())
}

// ibdoctorWrapper writes an executable "ibdoctor" that runs this test
// binary as the CLI.
func ibdoctorWrapper(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "ibdoctor")
	script := "#!/bin/sh\nIBDOCTOR_AS_CLI=1 exec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// The NHC check, sourced by bash as NHC does, against simulated node
// roots: healthy passes silently, warnings are logged, a critical finding
// drains with one short reason naming the worst finding and where it is
// while every finding is logged on its own line, and an ibdoctor that
// cannot run drains with its error.
func TestNHCScript(t *testing.T) {
	bash := testenv.NeedTool(t, "bash")
	testenv.NeedTool(t, "timeout")
	script, err := filepath.Abs("slurm/nhc-ibdoctor.sh")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	conf, err := os.ReadFile("slurm/ibdoctor-nhc.conf")
	if err != nil || !strings.Contains(string(conf), "check_ibdoctor") {
		t.Fatalf("nhc.conf snippet does not call check_ibdoctor: %v", err)
	}
	bin := ibdoctorWrapper(t)
	simRoot := func(faults ...string) string {
		dir := filepath.Join(t.TempDir(), "root")
		args := []string{"sim", "node", "--out", dir}
		for _, f := range faults {
			args = append(args, "--fault", f)
		}
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("ibdoctor %v: %v\n%s", args, err, out)
		}
		return dir
	}
	// NHC sources the check and provides log and die; die's first
	// argument is the exit code, the rest the drain reason.
	driver := `log() { printf 'LOG %s\n' "$*"; }
die() { shift; printf 'DIE %s\n' "$*"; }
source "$1"
check_ibdoctor
printf 'RC %s\n' "$?"
`
	for _, tt := range []struct {
		name   string
		root   string
		rc     string
		die    string // the whole drain reason; "" = no drain
		logs   int
		logHas string
	}{
		{"healthy", simRoot(), "0", "", 0, ""},
		{"one critical", simRoot("polling:mlx5_5/1"), "1", "ibdoctor: mlx5_5 port 1 port.polling", 1, "ibdoctor: critical port.polling mlx5_5 port 1 (ibp154s0): mlx5_5 port 1 is Polling"},
		{"three criticals", simRoot("polling:mlx5_5/1", "width:mlx5_2/1=2", "pcie-width:mlx5_4=8"), "1", "ibdoctor: mlx5_5 port 1 port.polling (+2 more)", 3, "ibdoctor: critical port.width_degraded mlx5_2 port 1"},
		{"warnings only", simRoot("saturate:mlx5_1/1/symbol_error"), "0", "", 1, "ibdoctor: warning port.counter_saturated mlx5_1 port 1"},
		{"cannot run", "/nonexistent/root", "1", "ibdoctor: could not run (exit 3)", 1, "ibdoctor: cannot open root"},
	} {
		cmd := exec.Command(bash, "-c", driver, "nhc", script)
		cmd.Env = append(os.Environ(), "IBDOCTOR="+bin, "IBDOCTOR_ROOT="+tt.root, "IBDOCTOR_EXPECT=/nonexistent/expect.yaml")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.name, err, out)
		}
		var dies, logs []string
		rc := ""
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			switch {
			case strings.HasPrefix(l, "DIE "):
				dies = append(dies, strings.TrimPrefix(l, "DIE "))
			case strings.HasPrefix(l, "LOG "):
				logs = append(logs, strings.TrimPrefix(l, "LOG "))
			case strings.HasPrefix(l, "RC "):
				rc = strings.TrimPrefix(l, "RC ")
			}
		}
		if rc != tt.rc {
			t.Errorf("%s: check_ibdoctor returned %s, want %s\n%s", tt.name, rc, tt.rc, out)
		}
		switch {
		case tt.die == "" && len(dies) > 0:
			t.Errorf("%s: drained with %q", tt.name, dies)
		case tt.die != "" && (len(dies) != 1 || !strings.HasPrefix(dies[0], tt.die)):
			t.Errorf("%s: drain reason %q, want %q", tt.name, dies, tt.die)
		case len(dies) == 1 && strings.HasPrefix(tt.die, "ibdoctor:") && dies[0] != tt.die:
			t.Errorf("%s: drain reason %q, want exactly %q", tt.name, dies[0], tt.die)
		}
		for _, d := range dies {
			if len(d) > 80 || strings.Contains(d, "\n") {
				t.Errorf("%s: drain reason too long for sinfo -R (%d chars): %q", tt.name, len(d), d)
			}
		}
		if len(logs) != tt.logs {
			t.Errorf("%s: %d log lines, want %d: %q", tt.name, len(logs), tt.logs, logs)
		}
		if tt.logHas != "" && !slices.ContainsFunc(logs, func(l string) bool { return strings.HasPrefix(l, tt.logHas) }) {
			t.Errorf("%s: no log line starts with %q: %q", tt.name, tt.logHas, logs)
		}
	}
}

// TestREADMEThresholdTable keeps the README's threshold table equal to the
// agent's defaults.
func TestREADMEThresholdTable(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range trend.Docs() {
		row := "| `" + d.Key + "` | " + d.Default + " | " + d.Rules + " | " + d.Meaning + " |"
		if !strings.Contains(string(data), row) {
			t.Errorf("README.md lacks the row %s", row)
		}
	}
}
