package cmdutil

import (
	"context"
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

// LoadSnapshot reads the node at root (a directory or a bundle .tar.gz).
// Errors mean the root is unusable; unreadable files become Snapshot.Gaps.
func LoadSnapshot(ctx context.Context, f *Factory, root string) (*snapshot.Snapshot, error) {
	rt, err := rootfs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("cannot open root: %w", err)
	}
	defer rt.Close()
	return sysfs.Read(ctx, rt.FS(), sysfs.Options{Root: root, Now: f.Now})
}
