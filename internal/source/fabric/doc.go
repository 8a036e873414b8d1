// Package fabric takes a fabric collection: it runs the infiniband-diags
// tools (ibnetdiscover, iblinkinfo, ibqueryerrors, dump_fts, sminfo,
// saquery, perfquery as a fallback) and saves or reads back their outputs as
// a directory or a .tar.gz. It does not parse beyond what it needs to pick
// the next tool's targets; internal/rules/fabric builds the model and judges
// it.
package fabric
