"""The formula language: lexer, parser and syntax trees; the tables of built-in functions and random draws."""
