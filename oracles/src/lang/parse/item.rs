//! Parsing items: the `dialect` line, classes (fields and methods), top-level methods,
//! `init` and `thread` blocks; duplicate classes, methods, fields and parameters are errors.

use super::*;

impl Parser<'_> {
    pub(super) fn program(&mut self) -> PResult<Program> {
        self.skip_newlines();
        if !self.eat_kw("dialect") {
            return self.expected("`dialect NAME` as the first line");
        }
        let dialect = match self.peek().clone() {
            Tok::Ident(s) => match Dialect::from_name(&s) {
                Some(d) => {
                    self.bump();
                    d
                }
                None => {
                    let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
                    return self.err(ParseErrorKind::UnknownDialect, &format!("unknown dialect `{s}` (known: {})", known.join(", ")));
                }
            },
            _ => return self.expected("a dialect name"),
        };
        let mut prog = Program { dialect, classes: vec![], methods: vec![], init: None, threads: vec![], regions: vec![] };
        loop {
            self.skip_newlines();
            let line = Line(self.pos().line);
            if *self.peek() == Tok::Eof {
                break;
            } else if self.is_kw("class") || self.is_kw("capsule") {
                let c = self.class()?;
                if prog.classes.iter().any(|d| d.name == c.name) {
                    return Err(ParseError::at(self.src, Pos { line: c.line.0, col: 1 }, ParseErrorKind::Duplicate, &format!("class `{}` is declared twice", c.name)));
                }
                prog.classes.push(c);
            } else if self.is_kw("method") {
                prog.methods.push(self.method()?);
            } else if self.eat_kw("init") {
                if prog.init.is_some() {
                    return Err(ParseError::at(self.src, Pos { line: line.0, col: 1 }, ParseErrorKind::Duplicate, "a program has at most one `init` block"));
                }
                prog.init = Some(self.block()?);
            } else if self.eat_kw("thread") {
                prog.threads.push(self.block()?);
            } else if self.eat_kw("regions") {
                prog.regions.push(self.region()?);
            } else {
                return self.expected("`class`, `method`, `init`, `thread` or `regions`");
            }
        }
        let scopes = std::iter::once(&prog.methods).chain(prog.classes.iter().map(|c| &c.methods));
        for methods in scopes {
            for (i, m) in methods.iter().enumerate() {
                if methods[..i].iter().any(|n| n.name == m.name) {
                    let pos = Pos { line: m.line.0, col: 1 };
                    return Err(ParseError::at(self.src, pos, ParseErrorKind::Duplicate, &format!("method `{}` is declared twice in the same scope", m.name)));
                }
            }
        }
        Ok(prog)
    }

    /// `regions { x, y }`: one region, a non-empty list of variables.
    fn region(&mut self) -> PResult<Vec<String>> {
        self.expect_punct("{")?;
        let mut vars = vec![self.name("a variable name")?];
        while self.eat_punct(",") {
            vars.push(self.name("a variable name")?);
        }
        self.expect_punct("}")?;
        Ok(vars)
    }

    pub(super) fn class(&mut self) -> PResult<Class> {
        let line = Line(self.pos().line);
        let capsule = self.eat_kw("capsule");
        if !self.eat_kw("class") {
            return self.expected("`class`");
        }
        let name = self.name("a class name")?;
        self.skip_newlines();
        self.expect_punct("{")?;
        let mut class = Class { name, capsule, fields: vec![], methods: vec![], line };
        loop {
            self.skip_newlines();
            while self.eat_punct(";") {
                self.skip_newlines();
            }
            if self.eat_punct("}") {
                return Ok(class);
            } else if self.eat_kw("fields") {
                loop {
                    let f = self.name("a field name")?;
                    if class.fields.contains(&f) {
                        return self.err(ParseErrorKind::Duplicate, &format!("field `{f}` is declared twice"));
                    }
                    class.fields.push(f);
                    if !self.eat_punct(",") {
                        break;
                    }
                }
            } else if self.is_kw("method") {
                class.methods.push(self.method()?);
            } else {
                return self.expected("`fields`, `method` or `}`");
            }
        }
    }

    pub(super) fn method(&mut self) -> PResult<Method> {
        let line = Line(self.pos().line);
        self.bump(); // `method`
        let name = self.name("a method name")?;
        self.expect_punct("(")?;
        let mut params = vec![];
        if !self.eat_punct(")") {
            loop {
                let p = self.name("a parameter name")?;
                if params.contains(&p) {
                    return self.err(ParseErrorKind::Duplicate, &format!("parameter `{p}` is declared twice"));
                }
                params.push(p);
                if self.eat_punct(")") {
                    break;
                }
                self.expect_punct(",")?;
            }
        }
        self.skip_newlines();
        let body = self.block()?;
        Ok(Method { name, params, body, line })
    }
}
