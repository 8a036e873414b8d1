package fabric

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	fabricrules "github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// PathOptions are the inputs of `fabric path`.
type PathOptions struct {
	F        *cmdutil.Factory
	Format   cmdutil.Format
	Source   Source
	Src, Dst string
}

// NewCmdPath builds `fabric path SRC DST`.
func NewCmdPath(f *cmdutil.Factory, runF func(*PathOptions) error) *cobra.Command {
	o := &PathOptions{F: f}
	cmd := &cobra.Command{
		Use:   "path SRC DST",
		Short: "Follow the forwarding tables from SRC to DST, hop by hop (like ibtracert, offline)",
		Long: `Print the route from SRC to DST as the switches' forwarding tables give it,
in ibtracert's format. SRC and DST are LIDs or node names (description,
ibnetdiscover ID or GUID; a CA's first cabled port is taken). A broken
route prints the hops up to the break and why it breaks, and exits 2.`,
		Example: `  $ ibdoctor fabric path 12 57
  $ ibdoctor fabric path "gpu017 mlx5_0" "gpu233 mlx5_3" --from fabric.tar.gz`,
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Src, o.Dst = args[0], args[1]
			if runF != nil {
				return runF(o)
			}
			return runPath(context.Background(), o)
		},
	}
	cmdutil.AddFormatFlag(cmd, &o.Format)
	addSourceFlags(cmd, &o.Source)
	return cmd
}

// PathResult is the JSON output of `fabric path`.
type PathResult struct {
	Src   int      `json:"src_lid"`
	Dst   int      `json:"dst_lid"`
	Hops  []string `json:"hops"`
	OK    bool     `json:"ok"`
	Error string   `json:"error,omitempty"`
	Text  string   `json:"text"`
}

func runPath(ctx context.Context, o *PathOptions) error {
	raw, err := o.Source.load(ctx, o.F)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	m := fabricrules.Build(raw)
	rf, err := fabricrules.RoutingInput(m)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	src, err := resolveLID(m, o.Src)
	if err != nil {
		return cmdutil.CannotRun(fmt.Errorf("SRC: %w", err))
	}
	dst, err := resolveLID(m, o.Dst)
	if err != nil {
		return cmdutil.CannotRun(fmt.Errorf("DST: %w", err))
	}
	g, err := routing.New(rf)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	route, perr := g.Path(uint16(src), uint16(dst))
	res := PathResult{Src: src, Dst: dst, OK: perr == nil}
	var pe *routing.PathError
	switch {
	case perr == nil:
	case errors.As(perr, &pe):
		route = &routing.Route{Src: uint16(src), Dst: uint16(dst), Hops: pe.Partial}
		res.Error = perr.Error()
	default:
		return cmdutil.CannotRun(perr)
	}
	for _, h := range route.Hops {
		res.Hops = append(res.Hops, fmt.Sprintf("%s in %d out %d", rf.Nodes[h.Node].Name(), h.InPort, h.OutPort))
	}
	if perr == nil {
		res.Text = route.Format(rf)
	}
	if o.Format == cmdutil.FormatJSON {
		if err := cmdutil.WriteJSON(o.F.Out, res); err != nil {
			return err
		}
	} else {
		if res.Text != "" {
			fmt.Fprint(o.F.Out, res.Text)
		} else {
			for _, h := range res.Hops {
				fmt.Fprintln(o.F.Out, h)
			}
			fmt.Fprintln(o.F.Out, res.Error)
		}
	}
	if perr != nil {
		return cmdutil.Exit(finding.ExitCritical)
	}
	return nil
}

// resolveLID turns a LID or a node name into a LID.
func resolveLID(m *fabricrules.Fabric, s string) (int, error) {
	if v, err := strconv.ParseUint(s, 0, 16); err == nil && v > 0 {
		return int(v), nil
	}
	for i := range m.Nodes {
		n := &m.Nodes[i]
		if n.Desc != s && n.ID != s && fmt.Sprintf("0x%016x", n.GUID) != s && fmt.Sprintf("%#x", n.GUID) != s {
			continue
		}
		if n.Type == ibdiags.Switch {
			if n.LID > 0 {
				return n.LID, nil
			}
			return 0, fmt.Errorf("switch %q has no LID", s)
		}
		for _, p := range n.Ports {
			if p.LID > 0 {
				return p.LID, nil
			}
		}
		return 0, fmt.Errorf("node %q has no port with a LID", s)
	}
	return 0, fmt.Errorf("%q is neither a LID nor a node on the fabric", s)
}
