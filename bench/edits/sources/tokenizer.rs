use std::fmt;
use std::iter::Peekable;
use std::str::Chars;

#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Number(f64),
    Ident(String),
    Str(String),
    Plus,
    Minus,
    Star,
    Slash,
    LParen,
    RParen,
    Comma,
    Eof,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LexError {
    pub position: usize,
    pub message: String,
}

impl fmt::Display for LexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.position, self.message)
    }
}

pub struct Lexer<'a> {
    chars: Peekable<Chars<'a>>,
    position: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(input: &'a str) -> Self {
        Lexer {
            chars: input.chars().peekable(),
            position: 0,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        self.position += 1;
        Some(c)
    }

    fn skip_whitespace(&mut self) {
        while let Some(&c) = self.chars.peek() {
            if !c.is_whitespace() {
                break;
            }
            self.bump();
        }
    }

    fn number(&mut self, first: char) -> Result<Token, LexError> {
        let start = self.position;
        let mut text = String::from(first);
        while let Some(&c) = self.chars.peek() {
            if !(c.is_ascii_digit() || c == '.') {
                break;
            }
            text.push(c);
            self.bump();
        }
        text.parse::<f64>().map(Token::Number).map_err(|_| LexError {
            position: start,
            message: format!("invalid number {text:?}"),
        })
    }

    fn ident(&mut self, first: char) -> Token {
        let mut text = String::from(first);
        while let Some(&c) = self.chars.peek() {
            if !(c.is_alphanumeric() || c == '_') {
                break;
            }
            text.push(c);
            self.bump();
        }
        Token::Ident(text)
    }

    fn string(&mut self) -> Result<Token, LexError> {
        let start = self.position;
        let mut text = String::new();
        loop {
            match self.bump() {
                Some('"') => return Ok(Token::Str(text)),
                Some('\\') => match self.bump() {
                    Some('n') => text.push('\n'),
                    Some('t') => text.push('\t'),
                    Some(c) => text.push(c),
                    None => break,
                },
                Some(c) => text.push(c),
                None => break,
            }
        }
        Err(LexError {
            position: start,
            message: "unterminated string".to_string(),
        })
    }

    pub fn next_token(&mut self) -> Result<Token, LexError> {
        self.skip_whitespace();
        let Some(c) = self.bump() else {
            return Ok(Token::Eof);
        };
        match c {
            '+' => Ok(Token::Plus),
            '-' => Ok(Token::Minus),
            '*' => Ok(Token::Star),
            '/' => Ok(Token::Slash),
            '(' => Ok(Token::LParen),
            ')' => Ok(Token::RParen),
            ',' => Ok(Token::Comma),
            '"' => self.string(),
            c if c.is_ascii_digit() => self.number(c),
            c if c.is_alphabetic() || c == '_' => Ok(self.ident(c)),
            other => Err(LexError {
                position: self.position,
                message: format!("unexpected character {other:?}"),
            }),
        }
    }

    pub fn tokenize(mut self) -> Result<Vec<Token>, LexError> {
        let mut tokens = Vec::new();
        loop {
            let token = self.next_token()?;
            if token == Token::Eof {
                break;
            }
            tokens.push(token);
        }
        Ok(tokens)
    }
}
