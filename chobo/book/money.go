package book

import "strings"

// Currencies are the names chobo reads as money: the ISO 4217 codes in
// use, plus yen and sen written in Japanese. A code followed by "c" (USDc)
// names the hundredth of that currency.
var currencyCodes = strings.Fields(`
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB
BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP
DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF
IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK
LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN
NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF
SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND
TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XCG XOF XPF
YER ZAR ZMW ZWG`)

var (
	// currencySet holds every name counted in its own step as money.
	currencySet = map[string]bool{"円": true, "銭": true}
	// isoSet holds the plain codes, the only names that may also be
	// counted in hundredths.
	isoSet = map[string]bool{}
)

func init() {
	for _, c := range currencyCodes {
		currencySet[c] = true
		currencySet[c+"c"] = true
		isoSet[c] = true
	}
}

// IsMoney reports whether a unit counts money, which is what decides
// whether it may be marked incl_tax or excl_tax. A currency counted in
// its own step is money; so is a currency code other than JPY counted in
// hundredths (USD scale 2 counts cents). Anything else, 円 scale 2
// included, is a plain count.
func IsMoney(name string, scale int) bool {
	if !currencySet[name] {
		return false
	}
	switch scale {
	case 0:
		return true
	case 2:
		return isoSet[name] && name != "JPY"
	}
	return false
}
