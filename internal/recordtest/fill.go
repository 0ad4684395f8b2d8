package recordtest

import (
	"fmt"
	"reflect"
	"time"
)

// Fill sets every field reachable from v, a pointer, to a value other than
// its zero value: strings "s1", "s2" …, numbers 1, 2 …, booleans true,
// times one second apart in UTC, one element in every slice and map, and a
// string in every interface. A conversion that drops a field fails a
// round trip of a filled value.
func Fill(v any) {
	n := 0
	fill(reflect.ValueOf(v).Elem(), &n)
}

var base = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func fill(v reflect.Value, n *int) {
	*n++
	if v.Type() == timeType {
		v.Set(reflect.ValueOf(base.Add(time.Duration(*n) * time.Second)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n % 100))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n % 100))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), n)
		v.Set(p)
	case reflect.Slice:
		if v.Type() == rawType {
			v.SetBytes([]byte(fmt.Sprintf(`{"raw":%d}`, *n)))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), n)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, n)
		fill(e, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Interface:
		v.Set(reflect.ValueOf(fmt.Sprintf("any%d", *n)))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	}
}

// Leaves counts the values other than zero reachable from v: strings,
// numbers, booleans, times, raw JSON and interface values, through
// pointers, slices, maps and struct fields. A conversion of a filled value
// that keeps every field keeps the count.
func Leaves(v any) int {
	return leaves(reflect.ValueOf(v))
}

func leaves(v reflect.Value) int {
	if !v.IsValid() {
		return 0
	}
	if v.Type() == timeType || v.Type() == rawType {
		if v.IsZero() {
			return 0
		}
		return 1
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 0
		}
		if v.Kind() == reflect.Interface || v.Type().Elem().Kind() == reflect.Struct && v.Type().Elem().NumField() == 0 {
			return 1 // a value, or a marker such as *struct{}
		}
		return leaves(v.Elem())
	case reflect.Slice, reflect.Array:
		n := 0
		for i := range v.Len() {
			n += leaves(v.Index(i))
		}
		return n
	case reflect.Map:
		n := 0
		for it := v.MapRange(); it.Next(); {
			n += leaves(it.Key()) + leaves(it.Value())
		}
		return n
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += leaves(v.Field(i))
			}
		}
		return n
	}
	if v.IsZero() {
		return 0
	}
	return 1
}

// MemoryOf records in seen, by address, where each value that v reaches
// through a pointer, a slice's array, a map or an interface lives, named
// by its path from path: two values whose records share an address share
// memory, and a change of one shows in the other. Values of no size and
// empty arrays (which may all live at one address) and the zones of times
// (immutable, shared by every time in them) are left out.
func MemoryOf(v reflect.Value, path string, seen map[uintptr]string) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type().Elem().Size() == 0 {
			return
		}
		if _, ok := seen[v.Pointer()]; ok {
			return
		}
		seen[v.Pointer()] = path
		MemoryOf(v.Elem(), path, seen)
	case reflect.Slice:
		if v.IsNil() || v.Cap() == 0 || v.Type().Elem().Size() == 0 {
			return
		}
		seen[v.Pointer()] = path
		for i := range v.Len() {
			MemoryOf(v.Index(i), fmt.Sprintf("%s[%d]", path, i), seen)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		seen[v.Pointer()] = path
		for it := v.MapRange(); it.Next(); {
			MemoryOf(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()), seen)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			MemoryOf(v.Field(i), path+"."+v.Type().Field(i).Name, seen)
		}
	case reflect.Interface:
		if !v.IsNil() {
			MemoryOf(v.Elem(), path, seen)
		}
	}
}
