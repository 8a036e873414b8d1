// Package pairwise finds the culprit when some of the pairwise bandwidth or
// latency tests between nodes are slow or fail (Check): perf.node_slow
// (slow with every partner), perf.pair_slow, perf.link_slow and
// perf.switch_slow (every pair through one leaf's uplinks or one switch
// slow, when the hosts' leaves and spines are known), perf.pair_failed and
// perf.node_failed. It is pure: the matrix internal/service/pairwise
// measured comes in, findings go out.
package pairwise
