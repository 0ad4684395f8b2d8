package deliverykit

import (
	"runtime/debug"
	"sync"
)

// ModulePath is the path of this module.
const ModulePath = "github.com/deliverykit/deliverykit"

// DevelVersion is the version reported when the build does not say which
// release of the module it holds: a binary built from a checkout without
// version control information, or a module replaced by a directory.
const DevelVersion = "(devel)"

// Version is the version of this module linked into the running binary,
// as the go command recorded it: a release tag ("v0.3.0"), a
// pseudo-version of a commit ("v0.0.0-20261126…-abcdef123456", with
// "+dirty" when built from a modified checkout), or DevelVersion. It is
// the same whether the module is the binary's main module (the example
// server) or a dependency of it (a merchant's program).
func Version() string { return version() }

var version = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return DevelVersion
	}
	return moduleVersion(bi)
})

// moduleVersion finds this module in bi: the main module, or a dependency
// (through its replacement, when it has one).
func moduleVersion(bi *debug.BuildInfo) string {
	m := &bi.Main
	if m.Path != ModulePath {
		m = nil
		for _, d := range bi.Deps {
			if d.Path == ModulePath {
				m = d
				break
			}
		}
	}
	if m == nil {
		return DevelVersion
	}
	if m.Replace != nil {
		m = m.Replace
	}
	if m.Version == "" {
		return DevelVersion
	}
	return m.Version
}
