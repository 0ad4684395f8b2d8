package checked_test

import (
	"math"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/internal/checked"
)

type result[T any] struct {
	V  T
	OK bool
}

func TestAddMulSub64(t *testing.T) {
	const max, min = math.MaxInt64, math.MinInt64
	tests := []struct {
		a, b          int64
		add, sub, mul result[int64]
	}{
		{0, 0, result[int64]{0, true}, result[int64]{0, true}, result[int64]{0, true}},
		{max, 0, result[int64]{max, true}, result[int64]{max, true}, result[int64]{0, true}},
		{max, 1, result[int64]{0, false}, result[int64]{max - 1, true}, result[int64]{max, true}},
		{max, -1, result[int64]{max - 1, true}, result[int64]{0, false}, result[int64]{-max, true}},
		{min, -1, result[int64]{0, false}, result[int64]{min + 1, true}, result[int64]{0, false}},
		{-1, min, result[int64]{0, false}, result[int64]{max, true}, result[int64]{0, false}},
		{min, 1, result[int64]{min + 1, true}, result[int64]{0, false}, result[int64]{min, true}},
		{min, 0, result[int64]{min, true}, result[int64]{min, true}, result[int64]{0, true}},
		{max, max, result[int64]{0, false}, result[int64]{0, true}, result[int64]{0, false}},
		{min, min, result[int64]{0, false}, result[int64]{0, true}, result[int64]{0, false}},
		{max / 2, 2, result[int64]{max/2 + 2, true}, result[int64]{max/2 - 2, true}, result[int64]{max - 1, true}},
		{max/2 + 1, 2, result[int64]{max/2 + 3, true}, result[int64]{max/2 - 1, true}, result[int64]{0, false}},
		{min / 2, 2, result[int64]{min/2 + 2, true}, result[int64]{min/2 - 2, true}, result[int64]{min, true}},
		{min/2 - 1, 2, result[int64]{min/2 + 1, true}, result[int64]{min/2 - 3, true}, result[int64]{0, false}},
		{math.MaxInt32, math.MaxInt32, result[int64]{2 * math.MaxInt32, true}, result[int64]{0, true}, result[int64]{math.MaxInt32 * math.MaxInt32, true}},
		// 3,037,000,500² is just above MaxInt64; 3,037,000,499² just below.
		{3_037_000_499, 3_037_000_499, result[int64]{6_074_000_998, true}, result[int64]{0, true}, result[int64]{9_223_372_030_926_249_001, true}},
		{3_037_000_500, 3_037_000_500, result[int64]{6_074_001_000, true}, result[int64]{0, true}, result[int64]{0, false}},
		{-3_037_000_500, 3_037_000_500, result[int64]{0, true}, result[int64]{-6_074_001_000, true}, result[int64]{0, false}},
	}
	for _, tt := range tests {
		got := struct{ Add, Sub, Mul result[int64] }{}
		got.Add.V, got.Add.OK = checked.Add(tt.a, tt.b)
		got.Sub.V, got.Sub.OK = checked.Sub(tt.a, tt.b)
		got.Mul.V, got.Mul.OK = checked.Mul(tt.a, tt.b)
		want := struct{ Add, Sub, Mul result[int64] }{tt.add, tt.sub, tt.mul}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(%d, %d) (-want +got):\n%s", tt.a, tt.b, diff)
		}
	}
}

func TestAddMul32(t *testing.T) {
	const max, min = math.MaxInt32, math.MinInt32
	tests := []struct {
		a, b     int32
		add, mul result[int32]
	}{
		{max, 1, result[int32]{0, false}, result[int32]{max, true}},
		{max, 0, result[int32]{max, true}, result[int32]{0, true}},
		{min, -1, result[int32]{0, false}, result[int32]{0, false}},
		{-1, min, result[int32]{0, false}, result[int32]{0, false}},
		{46_340, 46_340, result[int32]{92_680, true}, result[int32]{2_147_395_600, true}},
		{46_341, 46_341, result[int32]{92_682, true}, result[int32]{0, false}},
		{65_536, 32_768, result[int32]{98_304, true}, result[int32]{0, false}},
		{65_536, 32_767, result[int32]{98_303, true}, result[int32]{2_147_418_112, true}},
		{-65_536, 32_768, result[int32]{-32_768, true}, result[int32]{min, true}},
	}
	for _, tt := range tests {
		var got [2]result[int32]
		got[0].V, got[0].OK = checked.Add(tt.a, tt.b)
		got[1].V, got[1].OK = checked.Mul(tt.a, tt.b)
		if diff := cmp.Diff([2]result[int32]{tt.add, tt.mul}, got); diff != "" {
			t.Errorf("(%d, %d) (-want +got):\n%s", tt.a, tt.b, diff)
		}
	}
}

func TestSum(t *testing.T) {
	type state struct {
		Total      int32
		OK         bool
		Overflowed int
	}
	tests := []struct {
		name string
		fill func(*checked.Sum[int32])
		want state
	}{
		{"empty", func(*checked.Sum[int32]) {}, state{0, true, -1}},
		{"fits", func(s *checked.Sum[int32]) { s.Add(math.MaxInt32 - 1); s.Add(1) }, state{math.MaxInt32, true, -1}},
		{"second overflows", func(s *checked.Sum[int32]) { s.Add(math.MaxInt32); s.Add(1); s.Add(-5) }, state{math.MaxInt32, false, 1}},
		{"product overflows", func(s *checked.Sum[int32]) { s.Add(3); s.AddProduct(2, 7); s.AddProduct(65_536, 32_768); s.Add(1) },
			state{17, false, 2}},
		{"products sum over", func(s *checked.Sum[int32]) {
			s.AddProduct(1_000_000, 1_000)
			s.AddProduct(1_000_000, 1_000)
			s.AddProduct(1_000_000, 1_000)
		}, state{2_000_000_000, false, 2}},
		{"negative allowed", func(s *checked.Sum[int32]) { s.Add(math.MinInt32 + 1); s.Add(-1) }, state{math.MinInt32, true, -1}},
		{"negative overflow", func(s *checked.Sum[int32]) { s.Add(math.MinInt32); s.AddProduct(-1, 1) }, state{math.MinInt32, false, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s checked.Sum[int32]
			tt.fill(&s)
			var got state
			got.Total, got.OK = s.Total()
			got.Overflowed = s.Overflowed()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// exact compares a checked operation with math/big.
func exact(t *testing.T, op string, a, b int64, got int64, ok bool) {
	t.Helper()
	x, y := big.NewInt(a), big.NewInt(b)
	var z big.Int
	switch op {
	case "+":
		z.Add(x, y)
	case "-":
		z.Sub(x, y)
	case "*":
		z.Mul(x, y)
	}
	fits := z.IsInt64()
	if ok != fits || ok && got != z.Int64() {
		t.Errorf("%d %s %d = (%d, %v), exactly %s", a, op, b, got, ok, z.String())
	}
}

func FuzzCheckedInt64(f *testing.F) {
	for _, s := range [][2]int64{{0, 0}, {math.MaxInt64, 1}, {math.MinInt64, -1}, {3_037_000_500, 3_037_000_500}, {-1, math.MinInt64}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b int64) {
		v, ok := checked.Add(a, b)
		exact(t, "+", a, b, v, ok)
		v, ok = checked.Sub(a, b)
		exact(t, "-", a, b, v, ok)
		v, ok = checked.Mul(a, b)
		exact(t, "*", a, b, v, ok)
	})
}

func FuzzCheckedInt32(f *testing.F) {
	f.Add(int32(math.MaxInt32), int32(1))
	f.Add(int32(math.MinInt32), int32(-1))
	f.Add(int32(46_341), int32(46_341))
	f.Fuzz(func(t *testing.T, a, b int32) {
		for _, op := range []struct {
			name string
			f    func(a, b int32) (int32, bool)
			g    func(a, b int64) int64
		}{
			{"+", checked.Add[int32], func(a, b int64) int64 { return a + b }},
			{"-", checked.Sub[int32], func(a, b int64) int64 { return a - b }},
			{"*", checked.Mul[int32], func(a, b int64) int64 { return a * b }},
		} {
			v, ok := op.f(a, b)
			want := op.g(int64(a), int64(b))
			fits := want >= math.MinInt32 && want <= math.MaxInt32
			if ok != fits || ok && int64(v) != want {
				t.Errorf("%d %s %d = (%d, %v), exactly %d", a, op.name, b, v, ok, want)
			}
		}
	})
}
