// Package ibdiagnet parses what ibdiagnet (the fabric check of the Mellanox
// / NVIDIA ibutils and ibutils2 packages) prints and writes: the console
// output of ibdiagnet 1.x ("Loading IBDIAGNET from", "-I- Stages Status
// Report") and 2.x ("Running version", one block per stage, the final
// "Summary" table and "Fabric Summary"), excerpts of ibdiagnet2.log, the
// START_xxx / END_xxx CSV sections of ibdiagnet2.db_csv and the link lines
// of ibdiagnet.lst / ibdiagnet2.lst.
//
// Every line is classified: a message ("-I-", "-W-", "-E-" with its
// stage), a row of the stage table, a field of the fabric summary, a CSV
// row, a .lst link, or framing (separators, stage headings, plugin lists).
// What fits none of these is listed in Report.Skipped with its number.
// Parsing only: what the lines mean for the fabric is judged by
// internal/rules/ibdiagnet.
package ibdiagnet
