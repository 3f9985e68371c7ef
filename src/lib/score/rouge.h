/* rouge.h - ROUGE-L: how much two programs look alike as text (the lexical metric sandeval argues against) */
#ifndef SANDEVAL_ROUGE_H
#define SANDEVAL_ROUGE_H

/* ROUGE-L F1 (beta = 1) of CANDIDATE against REFERENCE over code tokens
 * (identifiers, numbers, and each punctuation character; whitespace and
 * comments dropped): 2PR/(P+R) from their longest common subsequence.
 * 1.0 for identical token streams, 0.0 when nothing is shared or either is
 * empty. Each side is cut to its first ROUGE_MAX_TOKENS tokens. */
double rouge_l(const char *candidate, const char *reference);

#define ROUGE_MAX_TOKENS 4096

#endif
