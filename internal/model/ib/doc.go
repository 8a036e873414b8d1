// Package ib holds the InfiniBand and RoCE domain types that every other
// package shares: link rates with their width, lane speed and generation,
// port states, link layers, GIDs and the port counters with their IBTA bit
// widths and units.
//
// Every parser here is a pure function over one sysfs attribute or one token
// of tool output, formatted as drivers/infiniband/core/sysfs.c prints it.
package ib
