// Package dshbak reads the blocks "pdsh … | dshbak -c" prints (pdsh's
// dshbak script): each group of hosts whose output was identical under
// a header of three lines,
//
//	----------------
//	clx-orion-[040-048]
//	----------------
//	        fw_ver:                         12.21.2010
//
// sixteen dashes, the hosts as a hostlist expression, sixteen dashes,
// then the common output. Hosts of one command with different outputs
// get a block each. The command line above the blocks (a prompt line
// naming pdsh, clush or dshbak) is kept with each block, so the blocks
// of one command can be compared.
package dshbak

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
	"github.com/ibdoctor/ibdoctor/internal/parse/hostlist"
)

// ErrNoBlock is returned when no dshbak block is found.
var ErrNoBlock = errors.New("no dshbak -c block")

// Rule is the dashes line above and below a block's hosts.
const Rule = "----------------"

// Line is a line of a block's output.
type Line struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Block is one group of hosts and their common output.
type Block struct {
	Line    int    `json:"line"` // the hosts line
	Hosts   string `json:"hosts"`
	Count   int    `json:"count"` // hosts in the expression, 0 when it does not expand
	Command string `json:"command,omitempty"`
	Lines   []Line `json:"lines"`
}

// HostsLine says whether t could be dshbak's hosts line: one word of
// host-name characters, brackets and commas.
func HostsLine(t string) bool {
	if t == "" || t == Rule || strings.ContainsAny(t, " \t") {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.,[]", c) >= 0) {
			return false
		}
	}
	return true
}

// Parse reads every block of a text.
func Parse(r io.Reader, source string) ([]*Block, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var ls []string
	for sc.Scan() {
		ls = append(ls, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Err: err}
	}
	var out []*Block
	var cur *Block
	cmd := ""
	for i := 0; i < len(ls); i++ {
		t := strings.TrimSpace(ls[i])
		if t == Rule && i+2 < len(ls) && HostsLine(strings.TrimSpace(ls[i+1])) && strings.TrimSpace(ls[i+2]) == Rule {
			h := strings.TrimSpace(ls[i+1])
			cur = &Block{Line: i + 2, Hosts: h, Command: cmd}
			if hs, err := hostlist.Expand(h); err == nil {
				cur.Count = len(hs)
			}
			out = append(out, cur)
			i += 2
			continue
		}
		if t == "" || strings.HasPrefix(t, "```") {
			cur = nil
			continue
		}
		if cur != nil {
			cur.Lines = append(cur.Lines, Line{Line: i + 1, Text: t})
			continue
		}
		if strings.Contains(t, "pdsh") || strings.Contains(t, "clush") || strings.Contains(t, "dshbak") {
			cmd = strings.TrimLeft(t, "$# ")
		}
	}
	if len(out) == 0 {
		return nil, &parse.Error{Source: source, Err: ErrNoBlock}
	}
	return out, nil
}

// Field returns the "name: value" of a line ("fw_ver:   12.21.2010"),
// false when it is none.
func Field(t string) (string, string, bool) {
	k, v, ok := strings.Cut(t, ":")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" || v == "" || strings.ContainsAny(k, " \t") {
		return "", "", false
	}
	return k, v, true
}
