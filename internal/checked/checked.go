// Package checked adds and multiplies integers and reports overflow
// instead of wrapping around. deliverykit sums and multiplies numbers that
// clients send (quantities, weights, prices); a wrapped sum turns an
// 18-exagram cart into a light one or a large cart total into a negative
// price. Every such sum goes through Add and Mul, and an overflow becomes
// an InvalidArgument naming the field, never a value.
//
//	total := int64(0)
//	for i, it := range items {
//		line, ok := checked.Mul(it.Price, it.Quantity)
//		if ok {
//			total, ok = checked.Add(total, line)
//		}
//		if !ok {
//			return deliverykit.InvalidField(fmt.Sprintf("items[%d].quantity", i), checked.Rule, "…")
//		}
//	}
package checked

// Rule is the Rule of a FieldViolation reporting an overflow: the field
// named makes a sum or product larger than its type can hold.
const Rule = "overflow"

// Signed is the integer types the package works on.
type Signed interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64
}

// Add returns a + b and true, or the zero value and false when the sum
// does not fit in T.
func Add[T Signed](a, b T) (T, bool) {
	c := a + b
	// Overflow happened iff both operands have the same sign and the
	// result's sign differs: then c moved the wrong way from a.
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}

// Sub returns a − b and true, or the zero value and false when the
// difference does not fit in T.
func Sub[T Signed](a, b T) (T, bool) {
	c := a - b
	if (c < a) != (b > 0) {
		return 0, false
	}
	return c, true
}

// Mul returns a × b and true, or the zero value and false when the
// product does not fit in T.
func Mul[T Signed](a, b T) (T, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	// The division undoes a product that fits; it cannot be trusted for
	// the one product whose quotient itself overflows: min × −1.
	if c/b != a || (a == -1 && b == c) || (b == -1 && a == c) {
		return 0, false
	}
	return c, true
}

// Sum adds values in order and remembers the first that did not fit.
// The zero Sum is 0 with nothing overflowed.
type Sum[T Signed] struct {
	total T
	// over is 1 + the index of the first Add that overflowed; 0 = none.
	over int
	n    int
}

// Add adds v to the sum. After an overflow the sum stays where it was and
// later values are ignored.
func (s *Sum[T]) Add(v T) {
	s.n++
	if s.over != 0 {
		return
	}
	t, ok := Add(s.total, v)
	if !ok {
		s.over = s.n
		return
	}
	s.total = t
}

// AddProduct adds a × b to the sum; an overflow of the product counts as
// an overflow of the sum.
func (s *Sum[T]) AddProduct(a, b T) {
	p, ok := Mul(a, b)
	if !ok {
		s.n++
		if s.over == 0 {
			s.over = s.n
		}
		return
	}
	s.Add(p)
}

// Total returns the sum and true, or the sum up to the overflow and false.
func (s *Sum[T]) Total() (T, bool) { return s.total, s.over == 0 }

// Overflowed returns the 0-based index of the first value (Add or
// AddProduct call) that made the sum overflow, or −1 when none did.
func (s *Sum[T]) Overflowed() int { return s.over - 1 }
