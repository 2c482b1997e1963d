//! CodePlan's edit prompt (§3.3), pure: one block to rewrite for an
//! instruction, with its class sketched (members without bodies), the
//! code it depends on (spatial context) and the edits that led to it
//! (temporal context). The reply is the whole new block in one fenced code
//! block.

use crate::{ChatRequest, Completion, LlmError, Message, Result};

/// Everything the model sees for one block.
#[derive(Clone, Debug, Default)]
pub struct EditPrompt<'a> {
    pub instruction: &'a str,
    pub path: &'a str,
    /// The language's name, for the code fence.
    pub language: &'a str,
    /// The block as it is now.
    pub fragment: &'a str,
    /// The enclosing class with its members' declarations only.
    pub sketch: Option<&'a str>,
    /// Related code: (what it is, the code).
    pub related: Vec<(String, String)>,
    /// Earlier edits on the way to this block, as unified diffs.
    pub edits: Vec<String>,
    /// Why the last reply was rejected (it did not parse once merged).
    pub rejected: Option<&'a str>,
}

const SYSTEM: &str = "You edit one block of code so that it follows an instruction and stays consistent with edits already made \
elsewhere. Change only what the instruction and those edits require; keep names, formatting and comments. Reply with the whole \
new block in one fenced code block, and nothing else.";

pub fn request(prompt: &EditPrompt<'_>, max_tokens: usize) -> ChatRequest {
    let mut user = format!("Instruction: {}\n\n", prompt.instruction);
    for diff in &prompt.edits {
        user.push_str(&format!("An edit already made:\n```diff\n{}\n```\n\n", diff.trim_end()));
    }
    for (what, code) in &prompt.related {
        user.push_str(&format!("{what}:\n```{}\n{}\n```\n\n", prompt.language, code.trim_end()));
    }
    if let Some(sketch) = prompt.sketch {
        user.push_str(&format!("The block's class, members without bodies:\n```{}\n{}\n```\n\n", prompt.language, sketch.trim_end()));
    }
    user.push_str(&format!("The block to edit ({}):\n```{}\n{}\n```\n", prompt.path, prompt.language, prompt.fragment.trim_end()));
    if let Some(why) = prompt.rejected {
        user.push_str(&format!("\nYour last reply was rejected: {why}. Reply with the whole block again.\n"));
    }
    ChatRequest::new(vec![Message::system(SYSTEM), Message::user(user)]).max_tokens(max_tokens)
}

/// The new block: the first fenced code block of the reply (or the whole
/// reply when it has none), reindented to the original's first line.
pub fn parse(completion: &Completion, original: &str) -> Result<String> {
    let text = completion.text.as_str();
    let code = match text.find("```") {
        Some(open) => {
            let body = &text[open + 3..];
            let body = body.split_once('\n').map_or("", |(_, rest)| rest);
            match body.find("```") {
                Some(close) => &body[..close],
                None => body,
            }
        }
        None => text,
    };
    let code = code.trim_end_matches(['\n', ' ']);
    if code.trim().is_empty() {
        return Err(LlmError::Structure("the reply holds no code".into()));
    }
    Ok(reindent(code, original))
}

/// `code` shifted so its first line is indented as `original`'s is (a
/// model often drops a method's indentation).
fn reindent(code: &str, original: &str) -> String {
    let indent = |s: &str| s.lines().find(|l| !l.trim().is_empty()).map_or(0, |l| l.len() - l.trim_start().len());
    let (want, have) = (indent(original), indent(code));
    let prefix: String = original.lines().find(|l| !l.trim().is_empty()).map_or(String::new(), |l| l[..want].to_string());
    let mut out = String::new();
    for line in code.lines() {
        if line.trim().is_empty() {
            out.push('\n');
            continue;
        }
        let stripped = if have > 0 { line.get(have.min(line.len() - line.trim_start().len())..).unwrap_or(line) } else { line };
        out.push_str(&prefix);
        out.push_str(stripped);
        out.push('\n');
    }
    if !original.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reply_is_the_fenced_block_reindented() {
        let original = "    def f(self):\n        return 1\n";
        let reply = Completion::of_text("Here:\n```python\ndef f(self, x):\n    return x\n```\nDone.");
        assert_eq!(parse(&reply, original).unwrap(), "    def f(self, x):\n        return x\n");
        assert!(parse(&Completion::of_text("```python\n```"), original).is_err());
    }
}
