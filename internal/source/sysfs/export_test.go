package sysfs

// Opens is how many files h opened (or tried to).
func (h *Handles) Opens() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.opens
}

// Reads is how many read system calls h made on kept files.
func (h *Handles) Reads() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reads
}

// Kept is how many files h keeps open for Refresh (static: for full reads
// only).
func (h *Handles) Kept(static bool) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, k := range h.files {
		if k.f != nil && k.static == static {
			n++
		}
	}
	return n
}

// NewHandlesLooking is NewHandles without inotify: every kept directory
// is looked at with fstat once per Refresh.
func NewHandlesLooking() *Handles {
	h := NewHandles()
	h.noNotify = true
	return h
}

// Looks is how many times h looked at a directory with fstat.
func (h *Handles) Looks() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.looks
}
