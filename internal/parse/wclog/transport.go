package wclog

import "strings"

// Transport is an application's line saying that its RDMA transport, or
// a device it meant to use for it, could not start.
type Transport struct {
	// Line is 1-based in the input; Text the line as read.
	Line int
	Text string
	// Fatal: the transport as a whole did not start (no device left);
	// else one device was refused. Device is the RDMA device the line
	// names, GID the GID index it used ("" when not named).
	Fatal       bool
	Device, GID string
	// NoNetdev: the line says the GID index has no network device
	// (Mooncake's rdma_context.cpp: "User-specified GID index 0 on
	// mlx5_8/ has no associated network device, may not be optimal for
	// RDMA operations"): a RoCE GID entry without an address.
	NoNetdev bool
	// Resource is the error of a verbs resource the program could not
	// create for a device (Mooncake's "Failed to create completion
	// queue: Cannot allocate memory [12]"), "" for other lines.
	Resource string
}

// TransportLine reads the lines in which a program says its RDMA
// transport could not start (Line left 0):
//
//   - Mooncake's transfer engine (glog): rdma_context.cpp's "User-specified
//     GID index 0 on mlx5_8/ has no associated network device, …" (the
//     GID entry has no address) and "Failed to
//     open device mlx5_8 on port  with GID 0" and rdma_transport.cpp's
//     "Disable device mlx5_8" (one device refused), "RdmaTransport: No
//     available RNIC" and "RdmaTransport: cannot initialize RDMA
//     resources" (none left: the transport is down);
//   - SPDK (lib/nvmf/transport.c, nvmf.c): "Unable to create new
//     transport of type RDMA", "Failed to listen on transport RDMA
//     address 10.0.0.12:4420";
//   - librdmacm's rdma_create_event_channel failing, as LDMS's zap_rdma
//     prints it ("z_rdma_listen: rdma_create_event_channel failed. zerr
//     7"): the event channel is /dev/infiniband/rdma_cm, so no RDMA CM
//     connection can be made there; and ldmsd's "Error 7 listening on the
//     'rdma' transport." (the daemon then exits). SPDK's
//     "rdma_create_event_channel() failed, No such device" is NoDevice's;
//   - brpc's RDMA transport (src/brpc/rdma/rdma_endpoint.cpp, as FalconFS
//     and other brpc programs log it): "Fail to create comp channel for
//     CQ: Too many open files [24]", "Fail to create CQ", "Fail to create
//     QP" (PLOG: the strerror text and errno after the colon), and
//     rdma_helper.cpp's "rdma_recv_block_type incorrect (valid value:
//     default/large/huge)", after which the RDMA initialisation stops.
//
// Only lines that name RDMA, an RNIC, a GID or an RDMA device are
// looked at; each wording is a plain substring test.
func TransportLine(l string) (Transport, bool) {
	if !transportHint(l) {
		return Transport{}, false
	}
	t := Transport{Text: l}
	switch {
	case strings.Contains(l, "RdmaTransport: ") && (strings.Contains(l, "No available RNIC") || strings.Contains(l, "cannot initialize RDMA resources")),
		strings.Contains(l, "Unable to create new transport of type RDMA"),
		strings.Contains(l, "Failed to listen on transport RDMA"),
		strings.Contains(l, "rdma_create_event_channel") && (strings.Contains(l, "fail") || strings.Contains(l, "rror")) && !NoDevice(l),
		strings.Contains(l, "listening on the 'rdma' transport"),
		strings.Contains(l, "rdma_endpoint.cpp") && strings.Contains(l, "] Fail to create "),
		strings.Contains(l, "rdma_helper.cpp") && strings.Contains(l, "] rdma_recv_block_type incorrect"):
		t.Fatal = true
		return t, true
	}
	if _, rest, ok := strings.Cut(l, "GID index "); ok && strings.Contains(rest, "has no associated network device") {
		gid, after, _ := strings.Cut(rest, " ")
		dev, found := strings.CutPrefix(after, "on ")
		if !found {
			return Transport{}, false
		}
		dev, _, _ = strings.Cut(dev, " ")
		t.Device, t.GID, t.NoNetdev = strings.TrimSuffix(dev, "/"), gid, true
		return t, t.Device != "" && t.GID != ""
	}
	if _, rest, ok := strings.Cut(l, "Failed to open device "); ok {
		dev, after, _ := strings.Cut(rest, " ")
		_, gid, found := strings.Cut(after, "with GID ")
		if dev == "" || !found {
			return Transport{}, false
		}
		t.Device = strings.TrimSuffix(dev, "/")
		t.GID, _, _ = strings.Cut(strings.TrimSpace(gid), " ")
		return t, true
	}
	if _, rest, ok := strings.Cut(l, "Failed to create completion queue"); ok && strings.Contains(l, "rdma_context") {
		// Mooncake's rdma_context.cpp when ibv_create_cq fails
		// ("Failed to create completion queue: Cannot allocate memory
		// [12]"): the device's context is not built, and
		// rdma_transport.cpp disables that device next.
		t.Resource = strings.TrimSpace(strings.TrimPrefix(rest, ":"))
		return t, true
	}
	if _, rest, ok := strings.Cut(l, "Disable device "); ok && strings.Contains(l, "rdma_transport") {
		dev, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if !reNIC.MatchString(dev) {
			return Transport{}, false
		}
		t.Device = dev
		return t, true
	}
	return Transport{}, false
}

// transportHint is TransportLine's cheap gate: every line it reads holds
// one of these.
func transportHint(l string) bool {
	return strings.Contains(l, "RDMA") || strings.Contains(l, "RNIC") || strings.Contains(l, "GID ") || strings.Contains(l, "Disable device ") || strings.Contains(l, "rdma")
}
