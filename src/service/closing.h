/* closing: the issues a pull request description declares closed ("Closes #3, #4"). */
#ifndef FM_CLOSING_H
#define FM_CLOSING_H
#endif
