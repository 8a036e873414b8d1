// Package expect reads and writes expectation files: the "baseline
// table" of what a node should look like (devices, ports, link layer,
// state, rate, firmware, PCIe generation and width), reviewed and edited by
// people, and compared with the live node on every check.
//
// The format is YAML (see Example in the README). Device names accept globs
// (mlx5_*, mlx5_[0-7]); entries apply in file order and a later entry
// overrides the fields an earlier one set, so a glob can state the common
// case and a per-device entry the exception. Errors name the file and line.
package expect
