// Package web renders the hub's and the agent's pages: server-rendered
// HTML with SVG drawn here (html/template, embed), no JavaScript build
// chain and no CDN. The pages read a Data; they never poll anything
// themselves.
package web

import "errors"

// ErrNotFound is what a Data returns for a host, run or fabric it does not
// have; the pages answer 404.
var ErrNotFound = errors.New("not found")
