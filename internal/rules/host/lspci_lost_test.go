package host

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/lspci"
)

// shineCluster171 is `lspci | grep -i nvidia` from
// https://github.com/lyulyul/shine-cluster/issues/171: the Quadro RTX GPU
// at 1c:00 reads "(rev ff)" on all four functions, its siblings "(rev a1)".
const shineCluster171 = `1a:00.0 VGA compatible controller: NVIDIA Corporation TU102GL [Quadro RTX 6000/8000] (rev a1)
1a:00.1 Audio device: NVIDIA Corporation TU102 High Definition Audio Controller (rev a1)
1a:00.2 USB controller: NVIDIA Corporation TU102 USB 3.1 Host Controller (rev a1)
1a:00.3 Serial bus controller [0c80]: NVIDIA Corporation TU102 USB Type-C UCSI Controller (rev a1)
1c:00.0 VGA compatible controller: NVIDIA Corporation TU102GL [Quadro RTX 6000/8000] (rev ff)
1c:00.1 Audio device: NVIDIA Corporation TU102 High Definition Audio Controller (rev ff)
1c:00.2 USB controller: NVIDIA Corporation TU102 USB 3.1 Host Controller (rev ff)
1c:00.3 Serial bus controller [0c80]: NVIDIA Corporation TU102 USB Type-C UCSI Controller (rev ff)
1d:00.0 VGA compatible controller: NVIDIA Corporation TU102GL [Quadro RTX 6000/8000] (rev a1)
`

func TestCheckPastedLspciLost(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		plain    bool
		want     []string // "ID severity pci"
		say      string   // in the first finding's summary
	}{
		{"GPU fell off, siblings answer", shineCluster171, true,
			[]string{"gpu.fallen_off_bus critical 1c:00.0"}, "GPU 1c:00.0 (NVIDIA Corporation TU102GL [Quadro RTX 6000/8000]) no longer answers"},
		{"plain listing, all answer", strings.ReplaceAll(shineCluster171, "(rev ff)", "(rev a1)"), true, nil, ""},
		{"NIC gone is critical", "3b:00.0 Infiniband controller: Mellanox Technologies MT28908 Family [ConnectX-6] (rev ff)\n3b:00.1 Infiniband controller: Mellanox Technologies MT28908 Family [ConnectX-6]\n", true,
			[]string{"pcie.device_lost critical 3b:00.0"}, "1 of its 2 functions read"},
		{"other device gone is a warning", "5e:00.0 Non-Volatile memory controller: Samsung Electronics Co Ltd NVMe SSD Controller PM9A1/PM9A3/980PRO (rev ff)\n", true,
			[]string{"pcie.device_lost warning 5e:00.0"}, "its function reads"},
		// realworld-fresh38 lspci-vfioforum-amdgpu-rev-ff-after-crash.txt
		// (forum thread "GPU passthrough quality of life improvements",
		// 2016-12-10): an AMD GPU passed through with vfio-pci, after a
		// crash. Its audio function is evidence of the one finding.
		{"AMD GPU gone is critical, its audio function with it", "02:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 67ef (rev ff) (prog-if ff)\n\t!!! Unknown header type 7f\n\tKernel driver in use: vfio-pci\n\n02:00.1 Audio device: Advanced Micro Devices, Inc. [AMD/ATI] Device aae0 (rev ff) (prog-if ff)\n\t!!! Unknown header type 7f\n\tKernel driver in use: vfio-pci\n\tKernel modules: snd_hda_intel\n", true,
			[]string{"pcie.device_lost critical 02:00.0"}, "all 2 of its functions read all ones"},
		{"audio listed first still names the GPU", "02:00.1 Audio device: Advanced Micro Devices, Inc. [AMD/ATI] Device aae0 (rev ff)\n02:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 67ef (rev ff)\n", true,
			[]string{"pcie.device_lost critical 02:00.0"}, "VGA compatible controller 02:00.0"},
		{"only the GPU's audio function gone is a warning", "02:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 67ef (rev c7)\n02:00.1 Audio device: Advanced Micro Devices, Inc. [AMD/ATI] Device aae0 (rev ff)\n", true,
			[]string{"pcie.device_lost warning 02:00.1"}, "Audio device 02:00.1"},
		{"compute accelerator gone is critical", "c1:00.0 Processing accelerators [1200]: Advanced Micro Devices, Inc. [AMD/ATI] Aldebaran/MI200 [Instinct MI250X/MI250] [1002:740c] (rev ff)\n", true,
			[]string{"pcie.device_lost critical c1:00.0"}, "compute accelerator gone from the bus"},
		{"BMC graphics gone is a warning", "03:00.0 VGA compatible controller: ASPEED Technology, Inc. ASPEED Graphics Family (rev ff)\n", true,
			[]string{"pcie.device_lost warning 03:00.0"}, "its function reads"},
		{"USB controller gone is a warning", "00:14.0 USB controller: Intel Corporation Cannon Lake PCH USB 3.1 xHCI Host Controller (rev ff)\n", true,
			[]string{"pcie.device_lost warning 00:14.0"}, ""},
		{"-vvv block is not plain", "17:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)\n\tBus: primary=16, secondary=17, subordinate=1f, sec-latency=0\n", false, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := lspci.Parse(strings.NewReader(tt.in), "p")
			if err != nil {
				t.Fatal(err)
			}
			fs, plain := CheckPastedLspciLost(l, "p")
			if plain != tt.plain {
				t.Errorf("plain %v, want %v", plain, tt.plain)
			}
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+" "+string(f.Severity)+" "+strings.TrimPrefix(f.Subject.PCI, "0000:"))
			}
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if tt.say != "" && !strings.Contains(fs[0].Summary, tt.say) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.say)
			}
			if len(fs) > 0 && fs[0].Severity == finding.Critical && len(fs[0].Evidence) == 0 {
				t.Error("no evidence")
			}
		})
	}
}
