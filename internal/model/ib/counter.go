package ib

import (
	"math"
	"strconv"
	"strings"
)

// Unit is what one count of a counter stands for.
type Unit string

// Counter units.
const (
	// UnitWords4 is a data counter in 4-octet words (port_xmit_data,
	// port_rcv_data): "Total number of data octets, divided by 4 (lanes)"
	// (Documentation/ABI/stable/sysfs-class-infiniband). Multiply by 4 for bytes.
	UnitWords4  Unit = "4-octet words"
	UnitPackets Unit = "packets"
	UnitErrors  Unit = "events"
	// UnitTicks is port_xmit_wait: ticks with data to send but no credit.
	UnitTicks Unit = "ticks"
	UnitBytes Unit = "bytes"
	// UnitMillis is hw_counters/lifespan, which is a setting, not a counter.
	UnitMillis Unit = "milliseconds"
)

// Kind separates what a counter means for health.
type Kind string

// Counter kinds.
const (
	KindError   Kind = "error"   // any increase is a symptom
	KindData    Kind = "data"    // traffic volume
	KindInfo    Kind = "info"    // informative (requests, CNPs handled)
	KindSetting Kind = "setting" // not a counter at all (lifespan)
)

// CounterSpec describes one counter file: its bit width, unit, whether it
// saturates (IBTA PortCounters error counters "shall stop at all ones") or
// wraps (mlx5 Q counters are read as 32 bits), and what it means.
type CounterSpec struct {
	Name string `json:"name"`
	// Bits is the counter width; 0 when unknown (then treated as 64).
	Bits int  `json:"bits"`
	Unit Unit `json:"unit"`
	Kind Kind `json:"kind"`
	// Saturating counters stop at Max(); the others wrap to zero.
	Saturating bool   `json:"saturating"`
	Help       string `json:"help"`
}

// Max is the largest value the counter can hold.
func (c CounterSpec) Max() uint64 {
	if c.Bits <= 0 || c.Bits >= 64 {
		return math.MaxUint64
	}
	return 1<<uint(c.Bits) - 1
}

// BytesPerUnit converts a count to bytes for data counters (4 for
// 4-octet words, 1 for byte counters) and is 0 otherwise.
func (c CounterSpec) BytesPerUnit() uint64 {
	switch c.Unit {
	case UnitWords4:
		return 4
	case UnitBytes:
		return 1
	}
	return 0
}

// IsSaturated reports whether v sits at the counter's maximum, which for a
// saturating counter means its true value and its rate are unknown.
func (c CounterSpec) IsSaturated(v uint64) bool {
	return c.Saturating && c.Bits > 0 && c.Bits < 64 && v >= c.Max()
}

// PortCounterSpecs are the PMA counters of /sys/class/infiniband/<dev>/
// ports/<n>/counters/ with their PortCounters widths
// (drivers/infiniband/core/sysfs.c PORT_PMA_ATTR). The data and packet
// counters are 64 bits wide when the HCA supports PortCountersExtended; see
// DataCounterBits.
var PortCounterSpecs = []CounterSpec{
	{Name: "VL15_dropped", Bits: 16, Unit: UnitPackets, Kind: KindError, Saturating: true, Help: "subnet management packets dropped (VL15)"},
	{Name: "excessive_buffer_overrun_errors", Bits: 4, Unit: UnitErrors, Kind: KindError, Saturating: true, Help: "consecutive flow-control update periods with input buffer overrun"},
	{Name: "link_downed", Bits: 8, Unit: UnitErrors, Kind: KindError, Saturating: true, Help: "link error recovery failed and the link went down"},
	{Name: "link_error_recovery", Bits: 8, Unit: UnitErrors, Kind: KindError, Saturating: true, Help: "successful link error recoveries (retrains)"},
	{Name: "local_link_integrity_errors", Bits: 4, Unit: UnitErrors, Kind: KindError, Saturating: true, Help: "local physical errors exceeded the threshold"},
	{Name: "multicast_rcv_packets", Bits: 64, Unit: UnitPackets, Kind: KindData, Help: "multicast packets received"},
	{Name: "multicast_xmit_packets", Bits: 64, Unit: UnitPackets, Kind: KindData, Help: "multicast packets sent"},
	{Name: "port_rcv_constraint_errors", Bits: 8, Unit: UnitPackets, Kind: KindError, Saturating: true, Help: "packets dropped by inbound partition or raw-packet constraints"},
	{Name: "port_rcv_data", Bits: 32, Unit: UnitWords4, Kind: KindData, Saturating: true, Help: "data received, in 4-octet words"},
	{Name: "port_rcv_errors", Bits: 16, Unit: UnitPackets, Kind: KindError, Saturating: true, Help: "packets received with errors"},
	{Name: "port_rcv_packets", Bits: 32, Unit: UnitPackets, Kind: KindData, Saturating: true, Help: "packets received"},
	{Name: "port_rcv_remote_physical_errors", Bits: 16, Unit: UnitPackets, Kind: KindError, Saturating: true, Help: "packets received marked with EBP delimiter (upstream physical error)"},
	{Name: "port_rcv_switch_relay_errors", Bits: 16, Unit: UnitPackets, Kind: KindError, Saturating: true, Help: "packets discarded because they could not be forwarded"},
	{Name: "port_xmit_constraint_errors", Bits: 8, Unit: UnitPackets, Kind: KindError, Saturating: true, Help: "packets not sent due to outbound partition or raw constraints"},
	{Name: "port_xmit_data", Bits: 32, Unit: UnitWords4, Kind: KindData, Saturating: true, Help: "data sent, in 4-octet words"},
	{Name: "port_xmit_discards", Bits: 16, Unit: UnitPackets, Kind: KindError, Saturating: true, Help: "outbound packets discarded (port down or congested)"},
	{Name: "port_xmit_packets", Bits: 32, Unit: UnitPackets, Kind: KindData, Saturating: true, Help: "packets sent"},
	{Name: "port_xmit_wait", Bits: 32, Unit: UnitTicks, Kind: KindInfo, Saturating: true, Help: "ticks with data to send but no flow-control credits (congestion)"},
	{Name: "symbol_error", Bits: 16, Unit: UnitErrors, Kind: KindError, Saturating: true, Help: "minor link errors detected on physical lanes"},
	{Name: "unicast_rcv_packets", Bits: 64, Unit: UnitPackets, Kind: KindData, Help: "unicast packets received"},
	{Name: "unicast_xmit_packets", Bits: 64, Unit: UnitPackets, Kind: KindData, Help: "unicast packets sent"},
}

// extWidthCounters become 64-bit, non-saturating (in practice) counters
// when the PMA supports PortCountersExtended.
var extWidthCounters = map[string]bool{
	"port_xmit_data": true, "port_rcv_data": true, "port_xmit_packets": true, "port_rcv_packets": true,
}

// PortCounterSpec returns the spec of a counters/ file. ext says whether the
// kernel chose a 64-bit table (pma_group_ext or pma_group_noietf), which
// widens the data and packet counters to 64 bits. Unknown names get a
// 64-bit informative spec, so a new kernel counter is exported, not dropped.
func PortCounterSpec(name string, ext bool) CounterSpec {
	for _, c := range PortCounterSpecs {
		if c.Name == name {
			if ext && extWidthCounters[name] {
				c.Bits = 64
				c.Saturating = false
			}
			return c
		}
	}
	return CounterSpec{Name: name, Bits: 64, Unit: UnitPackets, Kind: KindInfo, Help: "counter " + name}
}

// hwCounterSpecs are the mlx5 hw_counters (drivers/infiniband/hw/mlx5/
// counters.c). Q counters are read as 32 bits and wrap; congestion and PPCNT
// counters are 64 bits.
var hwCounterSpecs = map[string]CounterSpec{
	"rx_write_requests":              {Bits: 32, Unit: UnitPackets, Kind: KindInfo, Help: "RDMA WRITE requests received"},
	"rx_read_requests":               {Bits: 32, Unit: UnitPackets, Kind: KindInfo, Help: "RDMA READ requests received"},
	"rx_atomic_requests":             {Bits: 32, Unit: UnitPackets, Kind: KindInfo, Help: "atomic requests received"},
	"rx_dct_connect":                 {Bits: 32, Unit: UnitPackets, Kind: KindInfo, Help: "DCT connect requests received"},
	"out_of_buffer":                  {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "drops for lack of a posted receive WQE (responder not keeping up)"},
	"out_of_sequence":                {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "out-of-sequence packets received"},
	"duplicate_request":              {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "duplicate requests received (previously executed)"},
	"rnr_nak_retry_err":              {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "RNR NAKs received (retry limit not exceeded)"},
	"packet_seq_err":                 {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "NAK sequence errors received: packet loss on a lossless fabric"},
	"implied_nak_seq_err":            {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "implied NAK sequence errors (READ responses with a PSN gap)"},
	"local_ack_timeout_err":          {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "ACK timer expirations at the sender (retransmission)"},
	"resp_local_length_error":        {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "responder local length errors"},
	"resp_cqe_error":                 {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "responder CQEs completed with error"},
	"req_cqe_error":                  {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "requester CQEs completed with error"},
	"req_remote_invalid_request":     {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "remote invalid request errors"},
	"req_remote_access_errors":       {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "requester remote access errors"},
	"resp_remote_access_errors":      {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "responder remote access errors"},
	"resp_cqe_flush_error":           {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "responder CQEs flushed with error"},
	"req_cqe_flush_error":            {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "requester CQEs flushed with error"},
	"req_transport_retries_exceeded": {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "transport retry limit exceeded (QP to error)"},
	"req_rnr_retries_exceeded":       {Bits: 32, Unit: UnitPackets, Kind: KindError, Help: "RNR retry limit exceeded (QP to error)"},
	"roce_adp_retrans":               {Bits: 32, Unit: UnitPackets, Kind: KindInfo, Help: "RoCE adaptive retransmissions"},
	"roce_adp_retrans_to":            {Bits: 32, Unit: UnitPackets, Kind: KindInfo, Help: "timeouts due to adaptive retransmission"},
	"roce_slow_restart":              {Bits: 32, Unit: UnitPackets, Kind: KindInfo, Help: "RoCE slow restart uses"},
	"roce_slow_restart_cnps":         {Bits: 32, Unit: UnitPackets, Kind: KindInfo, Help: "CNPs generated by slow restart"},
	"roce_slow_restart_trans":        {Bits: 32, Unit: UnitPackets, Kind: KindInfo, Help: "transitions to slow restart"},
	"rp_cnp_ignored":                 {Bits: 64, Unit: UnitPackets, Kind: KindError, Help: "CNPs received and ignored by the reaction point (congestion control off?)"},
	"rp_cnp_handled":                 {Bits: 64, Unit: UnitPackets, Kind: KindInfo, Help: "CNPs handled by the reaction point to throttle"},
	"np_ecn_marked_roce_packets":     {Bits: 64, Unit: UnitPackets, Kind: KindInfo, Help: "RoCEv2 packets received with ECN congestion experienced"},
	"np_cnp_sent":                    {Bits: 64, Unit: UnitPackets, Kind: KindInfo, Help: "CNPs sent by the notification point"},
	"rx_icrc_encapsulated":           {Bits: 64, Unit: UnitPackets, Kind: KindError, Help: "RoCE packets with ICRC errors"},
	"lifespan":                       {Bits: 0, Unit: UnitMillis, Kind: KindSetting, Help: "ms between hardware counter refreshes (a setting, not a counter)"},
}

// HWCounterSpec returns the spec of a hw_counters/ file. Names are
// capability-dependent and discovered at run time; switchdev representors
// prefix them with "vport_". Unknown names get a 64-bit informative spec.
func HWCounterSpec(name string) CounterSpec {
	base := strings.TrimPrefix(name, "vport_")
	if c, ok := hwCounterSpecs[base]; ok {
		c.Name = name
		return c
	}
	return CounterSpec{Name: name, Bits: 64, Unit: UnitPackets, Kind: KindInfo, Help: "hardware counter " + name}
}

// ParseCounter parses a counter file's "%llu\n". Old kernels printed
// "N/A (no PMA)" when the MAD failed; that is reported as ErrNoPMA.
func ParseCounter(in string) (uint64, error) {
	t := strings.TrimSpace(in)
	if strings.HasPrefix(t, "N/A") {
		return 0, ErrNoPMA
	}
	v, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return 0, malformed("counter (unsigned decimal)", in)
	}
	return v, nil
}

// ErrNoPMA is returned for the "N/A (no PMA)" text of old kernels.
var ErrNoPMA = errorString("counter not available: N/A (no PMA)")

type errorString string

func (e errorString) Error() string { return string(e) }
