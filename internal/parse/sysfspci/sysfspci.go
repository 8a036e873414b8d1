// Package sysfspci reads the PCIe link attribute files of sysfs
// (current_link_speed, current_link_width, max_link_speed,
// max_link_width) as a paste shows them: the "==> FILE <==" headers that
// tail -v and head -v print above each file's value (coreutils tail.c
// write_header: "%s==> %s <==\n"), grep's "FILE:VALUE" lines (grep -H,
// or grep over several files), and "cat FILE" with the value on the next
// line. The kernel prints the values in drivers/pci/pci-sysfs.c
// (current_link_speed_show: pci_speed_string, "16.0 GT/s PCIe";
// current_link_width_show: "%u").
package sysfspci

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// Attrs are the link attribute files read.
var Attrs = []string{"current_link_speed", "current_link_width", "max_link_speed", "max_link_width"}

// Line is one line of the paste.
type Line struct {
	N    int
	Text string
}

// Link is one function's link attributes, keyed by its address or, where
// the path reaches the function through a class device
// (/sys/class/net/eth0/device/…), by that device.
type Link struct {
	// Address is the function's address, "" where the path names it
	// only by a class device.
	Address pcie.Address
	// Class and Name are the class device the path went through
	// ("net" "eth0", "infiniband" "mlx5_0", "drm" "card1"), "" otherwise.
	Class, Name        string
	CurSpeed, MaxSpeed *pcie.Speed
	CurWidth, MaxWidth *int
	// Lines are the lines of each attribute read (by attribute name):
	// the value's line, and the header or command line that named it.
	Lines map[string][]Line
}

// Label names the function: its address, or its class device.
func (l *Link) Label() string {
	switch {
	case l.Address != "" && l.Name != "":
		return string(l.Address) + " (" + l.Name + ")"
	case l.Address != "":
		return string(l.Address)
	}
	return l.Name
}

// Result is what Parse read.
type Result struct {
	Links []Link
	// Skipped lists attribute values that did not read ("Unknown" speed,
	// a garbled value), with their line.
	Skipped []string
}

// Header reads tail/head -v's "==> FILE <==" line, the path of FILE.
func Header(t string) (string, bool) {
	in, ok := strings.CutPrefix(t, "==> ")
	if !ok {
		return "", false
	}
	in, ok = strings.CutSuffix(in, " <==")
	return in, ok && in != ""
}

// attrPath splits a path ending in a link attribute file into the
// function it names and the attribute; ok false for any other path.
func attrPath(path string) (addr pcie.Address, class, name, attr string, ok bool) {
	path = strings.Trim(path, "\"'")
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", "", "", "", false
	}
	attr = path[i+1:]
	if !isAttr(attr) {
		return "", "", "", "", false
	}
	dir := strings.ReplaceAll(path[:i], `\:`, ":") // a shell-quoted "0000\:01\:00.0"
	parts := strings.Split(dir, "/")
	// /sys/class/CLASS/NAME/device/…: the function behind a class device.
	for j := 0; j+3 < len(parts); j++ {
		if parts[j] == "class" && parts[j+3] == "device" && parts[j+1] != "" && parts[j+2] != "" && (j == 0 || parts[j-1] == "sys") {
			if j+4 == len(parts) {
				return "", parts[j+1], parts[j+2], attr, true
			}
		}
	}
	// /sys/bus/pci/devices/ADDR, /sys/devices/pci0000:00/…/ADDR: the
	// last element is the function.
	if len(parts) < 2 || !strings.Contains(dir, "sys/bus/pci/devices/") && !strings.Contains(dir, "sys/devices/pci") {
		return "", "", "", "", false
	}
	a, err := pcie.ParseAddress(parts[len(parts)-1])
	if err != nil || strings.Count(parts[len(parts)-1], ":") != 2 {
		return "", "", "", "", false
	}
	return a, "", "", attr, true
}

func isAttr(s string) bool {
	for _, a := range Attrs {
		if s == a {
			return true
		}
	}
	return false
}

// grepLine reads "FILE:VALUE" (the value after the attribute's name and
// a colon).
func grepLine(t string) (path, val string, ok bool) {
	for _, a := range Attrs {
		i := strings.Index(t, "/"+a+":")
		if i < 0 {
			continue
		}
		start := strings.LastIndexAny(t[:i], " \t") + 1
		return t[start : i+1+len(a)], strings.TrimSpace(t[i+2+len(a):]), true
	}
	return "", "", false
}

// catLine reads a "cat FILE" command (a prompt before it or not).
func catLine(t string) (string, bool) {
	i := strings.Index(t, "cat ")
	if i < 0 || i > 0 && t[i-1] != ' ' && t[i-1] != '$' && t[i-1] != '#' && t[i-1] != '>' {
		return "", false
	}
	p := strings.TrimSpace(t[i+4:])
	if p == "" || strings.ContainsAny(p, " *{") {
		return "", false
	}
	return p, true
}

// IsLine says whether a line is one of the forms Parse reads that names a
// link attribute file: a tail/head -v header, a grep line, or a cat
// command. A cheap test for "_link_" comes first: most lines of a log
// hold no such name.
func IsLine(l string) bool {
	if !strings.Contains(l, "_link_") {
		return false
	}
	t := strings.TrimSpace(l)
	if p, ok := Header(t); ok {
		_, _, _, _, ok = attrPath(p)
		return ok
	}
	if p, _, ok := grepLine(t); ok {
		if _, _, _, _, ok := attrPath(p); ok {
			return true
		}
	}
	if p, ok := catLine(t); ok {
		_, _, _, _, ok = attrPath(p)
		return ok
	}
	return false
}

// Parse reads every link attribute the text shows; other lines (fences,
// prompts, prose, other sysfs files) are passed over. It fails only when
// no attribute is read at all.
func Parse(r io.Reader, source string) (*Result, error) {
	res := &Result{}
	idx := map[string]int{}
	link := func(addr pcie.Address, class, name string) *Link {
		k := string(addr)
		if k == "" {
			k = class + "/" + name
		}
		i, ok := idx[k]
		if !ok {
			i = len(res.Links)
			idx[k] = i
			res.Links = append(res.Links, Link{Address: addr, Class: class, Name: name, Lines: map[string][]Line{}})
		}
		return &res.Links[i]
	}
	read := 0
	set := func(path, val string, n int, text string, named *Line) {
		addr, class, name, attr, ok := attrPath(path)
		if !ok {
			return
		}
		lk := link(addr, class, name)
		lines := []Line{{N: n, Text: text}}
		if named != nil {
			lines = append([]Line{*named}, lines...)
		}
		switch attr {
		case "current_link_speed", "max_link_speed":
			sp, err := pcie.ParseSpeed(val)
			if err != nil {
				res.Skipped = append(res.Skipped, fmt.Sprintf("%s:%d: %s not read: %v", source, n, attr, err))
				return
			}
			if attr == "current_link_speed" {
				lk.CurSpeed = &sp
			} else {
				lk.MaxSpeed = &sp
			}
		default:
			w, err := pcie.ParseWidth(val)
			if err != nil {
				res.Skipped = append(res.Skipped, fmt.Sprintf("%s:%d: %s not read: %v", source, n, attr, err))
				return
			}
			if attr == "current_link_width" {
				lk.CurWidth = &w
			} else {
				lk.MaxWidth = &w
			}
		}
		lk.Lines[attr] = lines
		read++
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	pending, pendingLine := "", Line{} // the file a header or cat named
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		t := strings.TrimSpace(line)
		if t == "" {
			continue // tail -v separates files with a blank line
		}
		if !strings.Contains(t, "_link_") {
			if pending != "" {
				set(pending, t, n, t, &pendingLine)
				pending = ""
			}
			continue
		}
		pending = ""
		if p, ok := Header(t); ok {
			pending, pendingLine = p, Line{N: n, Text: t}
			continue
		}
		if p, v, ok := grepLine(t); ok {
			if _, _, _, _, isPath := attrPath(p); isPath {
				set(p, v, n, t, nil)
				continue
			}
		}
		if p, ok := catLine(t); ok {
			pending, pendingLine = p, Line{N: n, Text: t}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Line: n + 1, Err: err}
	}
	if read == 0 {
		return nil, &parse.Error{Source: source, Err: fmt.Errorf("no PCIe link attribute (%s) read", strings.Join(Attrs, ", "))}
	}
	return res, nil
}
