function reverse_words(s) {
	return s.split(" ").filter((w) => w.length > 0).reverse().join(" ");
}
