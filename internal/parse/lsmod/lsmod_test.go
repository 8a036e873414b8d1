package lsmod

import (
	"errors"
	"strings"
	"testing"
)

// TestParseLsmod: `lsmod | grep rdma` of a working node with QLogic and
// ConnectX-3 HCAs (ovis-hpc/ovis LDMS documentation), behind the
// Markdown fence it was pasted in, and rows that are not read.
func TestParse(t *testing.T) {
	const ls = "Module                  Size  Used by\n" +
		"```rdmavt                104548  1 ib_qib\n" +
		"rdma_ucm               26930  0 \n" +
		"ib_uverbs             102296  2 mlx4_ib,rdma_ucm\n" +
		"ib_core               255484  11 rdma_cm,ib_cm,iw_cm,ko2iblnd,mlx4_ib,ib_qib,rdmavt,ib_umad,ib_uverbs,rdma_ucm,ib_ipoib\n" +
		"nvidia_peermem         16384  0\n" +
		"ext4                  765952  1\n" +
		"ib_core 12x 1\n" +
		"mlx5_core  2 1 a,b;c\n"
	ms, err := Parse(strings.NewReader(ls), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if strings.Join(names, " ") != "rdmavt rdma_ucm ib_uverbs ib_core nvidia_peermem" || ms[0].Line != 2 || ms[2].Used != 2 ||
		strings.Join(ms[2].UsedBy, ",") != "mlx4_ib,rdma_ucm" || len(ms[3].UsedBy) != 11 || ms[1].UsedBy != nil {
		t.Errorf("%+v", ms)
	}
	if !Header("Module                  Size  Used by") || Header("Module Size") {
		t.Error("header")
	}
	if !Driver("mlx5_ib") || Driver("mlx5_core") {
		t.Error("Driver")
	}
	if _, err := Parse(strings.NewReader("Module Size Used by\next4 1 1\n"), "p.txt"); !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "p.txt") {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("ib_uverbs             102296  2 mlx4_ib,rdma_ucm\n")
	f.Add("```rdmavt 104548 1 ib_qib\nrdma_ucm 26930 0 \nib_core 1 - [permanent]\nmlx5_ib 1 1 ,\n")
	f.Fuzz(func(t *testing.T, in string) {
		ms, err := Parse(strings.NewReader(in), "f")
		if err == nil && len(ms) == 0 {
			t.Fatal("no modules and no error")
		}
	})
}
