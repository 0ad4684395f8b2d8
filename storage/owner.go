package storage

import "sync"

// Owner is implemented by a store that one process owns: no other process
// writes to it (memory; bolt, whose file it locks). What that process
// keeps in memory about the store's records then stays true as long as
// every writer in it keeps it up to date, so a package may keep an index
// of its records in memory instead of in the store, or hold a key in
// memory instead of locking it in the store (package idempotency does
// both).
//
// Shared returns the value every user of the store shares under key,
// made by make at the first call for key, and true; or false when the
// store is not this process's own after all (a wrapper's store that
// passes the call on). The key's type belongs to the package that uses
// it, as for a context value.
//
// A wrapper whose records are the wrapped store's passes Shared on; one
// that keeps its records apart (a view under other names) scopes key to
// them, or does not implement Owner. Callers use the function Shared,
// which reports stores without it.
type Owner interface {
	Shared(key any, make func() any) (any, bool)
}

// Shared returns the value s's users share under key (Owner), made by
// make at the first call, or reports that s is not one process's own.
func Shared(s Store, key any, make func() any) (any, bool) {
	o, ok := s.(Owner)
	if !ok {
		return nil, false
	}
	return o.Shared(key, make)
}

// SharedValues implements Owner for a store to embed. The zero value is
// ready to use.
type SharedValues struct {
	mu sync.Mutex
	m  map[any]any
}

// Shared returns the value under key, made by make at the first call.
func (v *SharedValues) Shared(key any, make func() any) (any, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if x, ok := v.m[key]; ok {
		return x, true
	}
	if v.m == nil {
		v.m = map[any]any{}
	}
	x := make()
	v.m[key] = x
	return x, true
}
