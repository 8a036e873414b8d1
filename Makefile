# ibdoctor — build, test, demo.
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X main.version=$(VERSION)
BIN      := bin/ibdoctor

.PHONY: all build test unit vet deps demo demo-ui bench fuzz clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/ibdoctor

## test: install what the tests need, then vet, layering check, unit,
## fuzz-seed and integration tests (ibsim/OpenSM, promtool, Prometheus,
## the web UI end to end in headless Chromium); govulncheck when its
## database is reachable.
test: deps vet
	./scripts/check-imports.sh
	./scripts/check-text.sh
	./scripts/govulncheck.sh
	$(GO) test -count=1 -timeout 20m ./...

deps:
	./scripts/install-deps.sh
	$(GO) mod download

vet:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	$(GO) vet ./...

## demo: the main job on a simulated cluster, no hardware needed.
demo:
	$(GO) run ./cmd/ibdoctor demo

## demo-ui: the whole system on this machine (simulated nodes with faults
## over time, their agents, the fabric, the hub and its web UI) until
## Ctrl-C; LISTEN picks the hub's address.
LISTEN ?= 127.0.0.1:9316
demo-ui:
	$(GO) run ./cmd/ibdoctor demo --ui --listen $(LISTEN)

## fuzz: run every fuzz target for FUZZTIME each (seeds run in `make test`).
FUZZTIME ?= 10s
fuzz:
	./scripts/fuzz-all.sh $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin out
