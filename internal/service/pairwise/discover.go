package pairwise

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// DefaultAgentsJob is the Prometheus job name the agents are expected
// under (deploy/prometheus uses it).
const DefaultAgentsJob = "ibdoctor"

// maxTargetsBytes bounds a Prometheus targets answer (large fleets: ~1 KiB
// per target).
const maxTargetsBytes = 64 << 20

// nameLabels are target labels that name the node, tried in order before
// the host part of the instance.
var nameLabels = []string{"node", "nodename", "hostname", "host"}

// targetsAnswer is the part of Prometheus's GET /api/v1/targets answer
// that names the scraped agents.
type targetsAnswer struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		ActiveTargets []struct {
			DiscoveredLabels map[string]string `json:"discoveredLabels"`
			Labels           map[string]string `json:"labels"`
			ScrapeURL        string            `json:"scrapeUrl"`
			Health           string            `json:"health"`
			LastError        string            `json:"lastError"`
		} `json:"activeTargets"`
	} `json:"data"`
}

// ParseTargets reads a Prometheus /api/v1/targets answer and returns the
// agents of job that Prometheus last scraped successfully (health "up"),
// sorted by name; skipped says which targets of the job were left out and
// why. A node's name is its "node", "nodename", "hostname" or "host" label,
// else the host part of its address.
func ParseTargets(r io.Reader, source, job string) (hosts []Host, skipped []string, err error) {
	var ans targetsAnswer
	dec := json.NewDecoder(io.LimitReader(r, maxTargetsBytes))
	if err := dec.Decode(&ans); err != nil {
		return nil, nil, fmt.Errorf("%s: not a Prometheus targets answer: %w", source, err)
	}
	if ans.Status != "success" {
		return nil, nil, fmt.Errorf("%s: Prometheus answered %q: %s", source, ans.Status, ans.Error)
	}
	byName := map[string]string{}
	for _, t := range ans.Data.ActiveTargets {
		if t.Labels["job"] != job {
			continue
		}
		addr := t.DiscoveredLabels["__address__"]
		if u, err := url.Parse(t.ScrapeURL); err == nil && u.Host != "" {
			addr = u.Host
		}
		if t.Health != "up" {
			skipped = append(skipped, fmt.Sprintf("%s: Prometheus sees it %s (%s)", addr, t.Health, strings.TrimSpace(t.LastError)))
			continue
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil || port == "" {
			skipped = append(skipped, fmt.Sprintf("%q: not host:port", addr))
			continue
		}
		if err := validHost(host); err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", addr, err))
			continue
		}
		h := Host{Addr: addr, Name: host}
		for _, l := range nameLabels {
			if v := t.Labels[l]; v != "" && validName(v) {
				h.Name = v
				break
			}
		}
		if prev, dup := byName[h.Name]; dup {
			if prev == h.Addr {
				continue // the same agent in two target groups
			}
			skipped = append(skipped, fmt.Sprintf("%s: node name %s already used by %s", h.Addr, h.Name, prev))
			continue
		}
		byName[h.Name] = h.Addr
		hosts = append(hosts, h)
	}
	slices.SortFunc(hosts, func(a, b Host) int { return strings.Compare(a.Name, b.Name) })
	return hosts, skipped, nil
}

// DiscoverAgents asks the Prometheus server at base (http://prom:9090) for
// the agents it scrapes under job: every node with an agent is already a
// Prometheus target, so no hosts file has to be kept in step with the
// fleet.
func DiscoverAgents(ctx context.Context, client *http.Client, base, job string) ([]Host, []string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("--from-agents %q: want the Prometheus server's URL, e.g. http://prometheus:9090", base)
	}
	u = u.JoinPath("api/v1/targets")
	u.RawQuery = "state=active"
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("asking Prometheus for the agents: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, nil, fmt.Errorf("%s: HTTP %d: %s", u, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	hosts, skipped, err := ParseTargets(resp.Body, u.String(), job)
	if err != nil {
		return nil, nil, err
	}
	if len(hosts) == 0 {
		return nil, skipped, errors.New(u.String() + ": no target of job " + job + " is up")
	}
	return hosts, skipped, nil
}
