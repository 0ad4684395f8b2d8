package carrier

import (
	"errors"
	"fmt"
)

// S10 tracking numbers (UPU standard S10): two upper-case letters naming
// the service, an eight-digit serial number, a check digit and the
// two-letter ISO country code of the issuing post, e.g. "CP123456785SE".

// s10Weights are the weights of the eight serial digits.
var s10Weights = [8]int{8, 6, 4, 2, 3, 5, 9, 7}

// S10CheckDigit returns the check digit of an eight-digit serial number:
// 11 - (weighted sum mod 11), where 10 becomes 0 and 11 becomes 5.
func S10CheckDigit(serial string) (int, error) {
	if len(serial) != 8 {
		return 0, errors.New("the serial number must have 8 digits")
	}
	sum := 0
	for i := range 8 {
		c := serial[i]
		if c < '0' || c > '9' {
			return 0, errors.New("the serial number must have 8 digits")
		}
		sum += int(c-'0') * s10Weights[i]
	}
	switch d := 11 - sum%11; d {
	case 10:
		return 0, nil
	case 11:
		return 5, nil
	default:
		return d, nil
	}
}

// FormatS10 builds an S10 number from its service indicator, serial number
// (0 to 99,999,999) and country code.
func FormatS10(service string, serial uint32, country string) (string, error) {
	if !upper2(service) {
		return "", fmt.Errorf("service indicator %q: want two upper-case letters", service)
	}
	if !upper2(country) {
		return "", fmt.Errorf("country %q: want two upper-case letters", country)
	}
	if serial > 99_999_999 {
		return "", fmt.Errorf("serial number %d: want at most 8 digits", serial)
	}
	s := fmt.Sprintf("%08d", serial)
	d, _ := S10CheckDigit(s) // s is 8 digits
	return fmt.Sprintf("%s%s%d%s", service, s, d, country), nil
}

// CheckS10 returns an error saying why s is not a valid S10 number.
func CheckS10(s string) error {
	if len(s) != 13 {
		return fmt.Errorf("must be an S10 tracking number of 13 characters (2 letters, 9 digits, 2 letters), got %d characters", len(s))
	}
	if !upper2(s[:2]) || !upper2(s[11:]) {
		return errors.New("must be an S10 tracking number: 2 upper-case letters, 9 digits, 2 upper-case letters")
	}
	want, err := S10CheckDigit(s[2:10])
	if err != nil || s[10] < '0' || s[10] > '9' {
		return errors.New("must be an S10 tracking number: 2 upper-case letters, 9 digits, 2 upper-case letters")
	}
	if int(s[10]-'0') != want {
		return fmt.Errorf("has a wrong S10 check digit: want %d", want)
	}
	return nil
}

func upper2(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}
