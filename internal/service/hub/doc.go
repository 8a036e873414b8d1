// Package hub is `ibdoctor hub`: it polls every agent's /api/v1/health and
// /api/v1/ports (or reads the agents' series from the Prometheus that
// scrapes them), keeps the fleet's history in hubstore (node health, port
// rates, the findings timeline, fabric checks, pairwise runs), raises
// hub.agent_unreachable for an agent that stops answering, and serves it
// all as a JSON API and as the web pages' data (web.Data).
package hub
