// Package ibdiags parses the text outputs of the infiniband-diags tools
// (ibnetdiscover, iblinkinfo, ibqueryerrors, perfquery, dump_fts/ibroute,
// sminfo) into plain structs. The parsers are pure: they read an io.Reader,
// accept what real clusters produce (tabs or spaces, node-name maps,
// comments, "# "desc" lid N 4xHDR" trailers, switches with enhanced port 0,
// missing optional fields) and fail with a *ParseError naming the source and
// line. Detect tells which tool printed a pasted text.
package ibdiags
