package host

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/dshbak"
)

func TestCheckDshbak(t *testing.T) {
	const differ = "$pdsh -w h[1-4] ibv_devinfo | grep fw_ver | dshbak -c\n----------------\nh[1-3]\n----------------\n        fw_ver:     12.21.2010\n----------------\nh4\n----------------\n        fw_ver:     12.20.1010\n\n" +
		"$pdsh -w h[1-4] ofed_info -s | dshbak -c\n----------------\nh[1-4]\n----------------\nMLNX_OFED_LINUX-4.2-1.2.0.0:\n"
	bs, err := dshbak.Parse(strings.NewReader(differ), "p")
	if err != nil {
		t.Fatal(err)
	}
	fs, agree, _ := CheckDshbak(bs, "p")
	if len(fs) != 1 || fs[0].ID != "host.fw_outlier" || fs[0].Subject.Host != "h4" {
		t.Fatalf("findings %+v", fs)
	}
	if len(agree) != 1 || !strings.Contains(agree[0], "MLNX_OFED_LINUX-4.2-1.2.0.0") {
		t.Errorf("agree %v", agree)
	}
	const tie = "$pdsh -w h[1-2] ofed_info -s | dshbak -c\n----------------\nh1\n----------------\nMLNX_OFED_LINUX-4.2-1.2.0.0:\n----------------\nh2\n----------------\nMLNX_OFED_LINUX-5.0-1.0.0.0:\n"
	bs, _ = dshbak.Parse(strings.NewReader(tie), "p")
	if fs, _, notes := CheckDshbak(bs, "p"); len(fs) != 0 || len(notes) != 1 {
		t.Errorf("tie: %v %v", fs, notes)
	}
	const ofed = "$pdsh -w h[1-3] ofed_info -s | dshbak -c\n----------------\nh[1-2]\n----------------\nMLNX_OFED_LINUX-4.2-1.2.0.0:\n----------------\nh3\n----------------\nMLNX_OFED_LINUX-5.0-1.0.0.0:\n"
	bs, _ = dshbak.Parse(strings.NewReader(ofed), "p")
	if fs, _, _ := CheckDshbak(bs, "p"); len(fs) != 1 || fs[0].ID != "host.driver_outlier" {
		t.Errorf("ofed: %v", fs)
	}
}
