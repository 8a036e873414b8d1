package pairwise

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParseTargets(t *testing.T) {
	f, err := os.Open("testdata/prometheus-targets.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hosts, skipped, err := ParseTargets(f, "targets.json", DefaultAgentsJob)
	if err != nil {
		t.Fatal(err)
	}
	want := []Host{{Addr: "127.0.0.1:19315", Name: "127.0.0.1"}, {Addr: "127.0.0.2:19315", Name: "127.0.0.2"}}
	if !slices.Equal(hosts, want) {
		t.Errorf("hosts %+v, want %+v", hosts, want)
	}
	// The down agent of the job is named; the other job's target is not.
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0], "127.0.0.3:19315: Prometheus sees it down") {
		t.Errorf("skipped %q", skipped)
	}
}

func TestParseTargetsNamesAndErrors(t *testing.T) {
	const two = `{"status":"success","data":{"activeTargets":[
 {"labels":{"job":"ibdoctor","instance":"10.0.0.1:9315","node":"gpu001"},"scrapeUrl":"http://10.0.0.1:9315/metrics","health":"up"},
 {"labels":{"job":"ibdoctor","instance":"10.0.0.2:9315","node":"gpu001"},"scrapeUrl":"http://10.0.0.2:9315/metrics","health":"up"},
 {"labels":{"job":"ibdoctor","instance":"x"},"scrapeUrl":"http://;rm -rf:9315/metrics","health":"up"}]}}`
	hosts, skipped, err := ParseTargets(strings.NewReader(two), "t", "ibdoctor")
	if err != nil || len(hosts) != 1 || hosts[0].Name != "gpu001" || len(skipped) != 2 {
		t.Fatalf("hosts %+v skipped %q err %v", hosts, skipped, err)
	}
	for _, in := range []string{`{"status":"error","error":"bad"}`, `<html>`, ``} {
		if _, _, err := ParseTargets(strings.NewReader(in), "t", "ibdoctor"); err == nil {
			t.Errorf("ParseTargets(%q) accepted", in)
		}
	}
}

func TestDiscoverAgents(t *testing.T) {
	body, err := os.ReadFile("testdata/prometheus-targets.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/prom/api/v1/targets" || r.URL.Query().Get("state") != "active" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()
	hosts, _, err := DiscoverAgents(context.Background(), srv.Client(), srv.URL+"/prom", DefaultAgentsJob)
	if err != nil || len(hosts) != 2 {
		t.Fatalf("hosts %+v err %v", hosts, err)
	}
	if _, _, err := DiscoverAgents(context.Background(), srv.Client(), srv.URL+"/prom", "nosuchjob"); err == nil || !strings.Contains(err.Error(), "no target of job nosuchjob is up") {
		t.Errorf("unknown job: %v", err)
	}
	if _, _, err := DiscoverAgents(context.Background(), srv.Client(), srv.URL+"/elsewhere", DefaultAgentsJob); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("404: %v", err)
	}
	if _, _, err := DiscoverAgents(context.Background(), srv.Client(), "prometheus:9090", DefaultAgentsJob); err == nil {
		t.Error("a URL without scheme must be refused")
	}
}

func FuzzParseTargets(f *testing.F) {
	b, _ := os.ReadFile("testdata/prometheus-targets.json")
	f.Add(string(b))
	f.Add(`{"status":"success","data":{"activeTargets":[{"labels":{"job":"ibdoctor"},"health":"up"}]}}`)
	f.Fuzz(func(t *testing.T, s string) {
		hosts, _, err := ParseTargets(strings.NewReader(s), "f", "ibdoctor")
		if err != nil {
			return
		}
		for _, h := range hosts {
			if validHost(h.IP()) != nil || !validName(h.Name) {
				t.Fatalf("accepted bad host %+v", h)
			}
		}
	})
}
