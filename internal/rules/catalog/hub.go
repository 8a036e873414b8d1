package catalog

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// hubMetas are the findings `ibdoctor hub` raises about the agents it
// polls.
var hubMetas = []finding.Meta{
	{
		ID: "hub.agent_unreachable", Severity: finding.Critical, Area: "hub", Step: finding.StepPort,
		Title:   "the hub cannot reach a node's agent",
		Meaning: "The hub's requests to the node's agent (GET /api/v1/health and /api/v1/ports) failed or timed out, or the agent answered with something that is not its API. Until it answers again the node's health is unknown: its last findings are shown as they were. The finding closes by itself at the first answer.",
		Causes:  []string{"the agent is not running (stopped, crashed, not installed on a new node)", "the node is down, rebooting or out of memory", "wrong address or port in the hub's agents file, or a firewall between the hub and the node", "the agent is overloaded and answers after the hub's timeout"},
		Remedy:  []string{"curl -s http://<agent>/healthz", "on the node: systemctl status ibdoctor-agent", "on the node: journalctl -u ibdoctor-agent -n 50", "ping <host>"},
	},
}
