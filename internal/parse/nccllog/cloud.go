package nccllog

import (
	"regexp"
	"strings"
)

// Instance is a cloud GPU instance type a log names whose accelerated
// network NCCL is meant to use: a job on such instances that falls back
// to NCCL's socket transport leaves that network idle.
type Instance struct {
	// Name is the type as the log wrote it ("p5.48xlarge",
	// "a3-highgpu-8g", "Standard_ND96isr_H100_v5"), or the family a host
	// name carries as a whole token ("p5" in "ray-worker-p5").
	Name string `json:"name"`
	// Network says what network the instance has and what NCCL needs to
	// use it.
	Network string `json:"network"`
	Source  string `json:"source"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
}

const (
	netEFA  = "EFA (Elastic Fabric Adapter), which NCCL reaches only through the aws-ofi-nccl net plugin (libfabric's efa provider)"
	netTCPX = "GPUDirect-TCPX on four extra gVNICs, which NCCL reaches only through Google's TCPX net plugin (nccl-plugin-gpudirecttcpx)"
	netTCPO = "GPUDirect-TCPXO on eight extra NICs, which NCCL reaches only through Google's TCPXO net plugin (nccl-plugin-gpudirecttcpx with the FasTrak/TCPXO receive path)"
	netRoCE = "GPUDirect RDMA over RoCE on ConnectX NICs (RDMA network), which NCCL's IB transport uses"
	netIB   = "InfiniBand (one ConnectX HCA per GPU), which NCCL's IB transport uses"
)

// instanceRE matches the instance types whose accelerated network NCCL
// should use, as whole tokens: AWS p4d/p4de/p5/p5e/p5en/p6 (EFA; AWS
// "Accelerated computing" instance types), GCP A3 High/Mega (8 GPUs:
// GPUDirect-TCPX/TCPXO), A3 Ultra and A4 (RDMA over RoCE; Google Cloud
// "GPU machine types"), Azure ND A100 v4 and ND H100/H200/MI300X v5
// (InfiniBand; Azure "ND-series" sizes).
var instanceRE = regexp.MustCompile(`(?i)(?:^|[^a-z0-9_.-])((p4de?|p5|p5e|p5en)\.(?:24|48)xlarge|(p6e?)-[a-z0-9]+\.\d+xlarge|(a3-highgpu|a3-megagpu|a3-ultragpu|a4-highgpu|a4x-highgpu)-[48]g|(standard_nd96)[a-z]*_(?:[a-z0-9]+_)?v[45])(?:$|[^a-z0-9_-])`)

// instanceNetwork is the network of a matched family.
func instanceNetwork(family string) string {
	switch strings.ToLower(family) {
	case "p4d", "p4de", "p5", "p5e", "p5en", "p6", "p6e":
		return netEFA
	case "a3-highgpu":
		return netTCPX
	case "a3-megagpu":
		return netTCPO
	case "a3-ultragpu", "a4-highgpu", "a4x-highgpu":
		return netRoCE
	case "standard_nd96":
		return netIB
	}
	return ""
}

// FindInstance returns the first cloud GPU instance type with an
// accelerated network named as a whole token in line.
func FindInstance(line string) (name, network string, ok bool) {
	if !strings.Contains(line, "xlarge") && !strings.Contains(line, "gpu-") && !strings.Contains(strings.ToLower(line), "nd96") {
		return "", "", false
	}
	m := instanceRE.FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	// a3-highgpu-4g has no GPUDirect-TCPX (only the 8-GPU a3-highgpu-8g
	// and a3-megagpu-8g have the extra NICs).
	if strings.HasPrefix(strings.ToLower(m[1]), "a3-") && !strings.HasSuffix(strings.ToLower(m[1]), "-8g") {
		return "", "", false
	}
	for _, f := range m[2:] {
		if f != "" {
			return m[1], instanceNetwork(f), true
		}
	}
	return "", "", false
}

// hostFamilies are the AWS instance families with EFA that node groups
// and host names carry as a token of their own ("ray-worker-p5",
// "p4d-queue-st-p4d-1").
var hostFamilies = map[string]bool{"p4d": true, "p4de": true, "p5": true, "p5e": true, "p5en": true}

// HostInstance returns the EFA instance family a host name carries as a
// whole token between '-', '_' or '.' ("ini-worker-ray-worker-p5"), or a
// full instance type FindInstance reads in it; "" when none. A family
// inside a longer token ("ap5", "p5x") does not count.
func HostInstance(host string) (name, network string) {
	if n, net, ok := FindInstance(host); ok {
		return n, net
	}
	for _, tok := range strings.FieldsFunc(strings.ToLower(host), func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if hostFamilies[tok] {
			return tok, netEFA
		}
	}
	return "", ""
}
