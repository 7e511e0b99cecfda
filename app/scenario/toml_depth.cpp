#include "scenario/toml_depth.hpp"

#include <fmt/format.h>

#include <vector>

namespace xfer::scenario_internal {

namespace {

bool bare_key_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

// One pass over the text, tracking what a parser would nest: the last table header's parts,
// the inline tables and arrays open around the current value, and the dotted key being read.
// Values themselves are skipped (strings whole, so that their brackets and dots count for
// nothing).
class DepthScan {
  public:
    explicit DepthScan(std::string_view text) : text_(text) {}

    std::optional<TomlDepthProblem> run() {
        // Past the limit, the rest of the key is still counted, for the message.
        while (i_ < text_.size() && !(problem_ && !chain_)) step(text_[i_]);
        return problem_;
    }

  private:
    struct Open {
        char kind;  // '[' an array, '{' an inline table
        int depth;  // the level of what sits directly inside it
    };

    void step(char c) {
        switch (c) {
            case '#':
                while (i_ < text_.size() && text_[i_] != '\n') advance();
                return;
            case '\n':
                end_chain();
                if (open_.empty()) key_mode_ = true;
                line_has_token_ = false;
                advance();
                return;
            case ' ':
            case '\t':
            case '\r':
                advance();
                return;
            case '"':
            case '\'':
                part(&DepthScan::skip_string);
                break;
            case '.':
                if (chain_ && !after_dot_)
                    after_dot_ = true;
                else
                    end_chain();
                advance();
                break;
            case '=':
                if (key_mode_ && !header_) {
                    value_depth_ = base() + parts_;
                    key_mode_ = false;
                }
                end_chain();
                advance();
                break;
            case '[':
                open_bracket();
                break;
            case ']':
                close_bracket();
                break;
            case '{':
                end_chain();
                if (!key_mode_) {
                    push('{', value_depth_);
                    key_mode_ = true;
                }
                advance();
                break;
            case '}':
                end_chain();
                if (!open_.empty() && open_.back().kind == '{') pop();
                advance();
                break;
            case ',':
                end_chain();
                if (!open_.empty()) {
                    key_mode_ = open_.back().kind == '{';
                    value_depth_ = open_.back().depth;
                }
                advance();
                break;
            default:
                if (bare_key_char(c)) {
                    part(&DepthScan::skip_bare);
                } else {
                    end_chain();
                    advance();
                }
        }
        line_has_token_ = true;
    }

    // The level keys are read at now: under the last header, or inside the open inline table.
    int base() const { return open_.empty() ? header_depth_ : open_.back().depth; }

    // A key part (bare or quoted) at the current position, skipped by `skip`. Parts joined by
    // dots make one key; in a value (1.5, a date) they are no key and count for nothing.
    void part(void (DepthScan::*skip)()) {
        const int line = line_, column = column_;
        (this->*skip)();
        if (!key_mode_) return;
        if (chain_ && after_dot_) {
            ++parts_;
            after_dot_ = false;
        } else {
            chain_ = true;
            after_dot_ = false;
            parts_ = 1;
            chain_line_ = line;
            chain_column_ = column;
        }
        const int depth = (header_ ? 0 : base()) + parts_;
        if (problem_)
            problem_->depth = depth;
        else if (depth > kMaxTomlDepth)
            problem_ = TomlDepthProblem{chain_line_, chain_column_, depth,
                                        header_ ? "table header" : "key"};
    }

    void end_chain() {
        chain_ = false;
        after_dot_ = false;
        parts_ = 0;
    }

    // '[' at the start of a line outside any value opens a table header ([a.b] or [[a.b]]);
    // in a value, an array.
    void open_bracket() {
        end_chain();
        if (key_mode_ && open_.empty() && !line_has_token_) {
            header_ = true;
            advance();
            if (i_ < text_.size() && text_[i_] == '[') advance();
            return;
        }
        if (!key_mode_) {
            push('[', value_depth_ + 1);
            value_depth_ = value_depth_ + 1;
        }
        advance();
    }

    void close_bracket() {
        if (header_) {
            header_depth_ = parts_;
            header_ = false;
            end_chain();
            advance();
            if (i_ < text_.size() && text_[i_] == ']') advance();
            return;
        }
        end_chain();
        if (!open_.empty() && open_.back().kind == '[') pop();
        advance();
    }

    void push(char kind, int depth) {
        if (depth > kMaxTomlDepth) {
            problem_ =
                TomlDepthProblem{line_, column_, depth, kind == '[' ? "array" : "inline table"};
            return;
        }
        open_.push_back(Open{kind, depth});
    }

    void pop() {
        open_.pop_back();
        if (!open_.empty()) value_depth_ = open_.back().depth;
    }

    void skip_bare() {
        while (i_ < text_.size() && bare_key_char(text_[i_])) advance();
    }

    // A string of any of TOML's four kinds, to its closing quote (or the end of its line, for
    // a single-line string left open: the parser says so).
    void skip_string() {
        const char quote = text_[i_];
        const std::string_view triple = quote == '"' ? "\"\"\"" : "'''";
        const bool multiline = text_.substr(i_, 3) == triple;
        advance(multiline ? 3 : 1);
        while (i_ < text_.size()) {
            const char c = text_[i_];
            if (c == '\\' && quote == '"') {
                advance(2);
                continue;
            }
            if (c == '\n' && !multiline) return;
            if (c != quote) {
                advance();
                continue;
            }
            if (!multiline) {
                advance();
                return;
            }
            if (text_.substr(i_, 3) == triple) {
                advance(3);
                // Up to two quotes more belong to the string: """a""""" is a"" then """.
                for (int extra = 0; extra < 2 && i_ < text_.size() && text_[i_] == quote; ++extra)
                    advance();
                return;
            }
            advance();
        }
    }

    void advance(size_t n = 1) {
        for (; n > 0 && i_ < text_.size(); --n, ++i_) {
            const auto byte = static_cast<unsigned char>(text_[i_]);
            if (byte == '\n') {
                ++line_;
                column_ = 1;
            } else if ((byte & 0xC0) != 0x80) {  // a UTF-8 continuation byte is no new character
                ++column_;
            }
        }
    }

    std::string_view text_;
    size_t i_ = 0;
    int line_ = 1, column_ = 1;
    std::vector<Open> open_;
    bool key_mode_ = true;         // a key may come next (else a value)
    bool header_ = false;          // inside [ ... ] of a table header
    bool line_has_token_ = false;  // something other than blanks came on this line
    int header_depth_ = 0;
    int value_depth_ = 0;  // the level of the value being read
    bool chain_ = false, after_dot_ = false;
    int parts_ = 0;
    int chain_line_ = 0, chain_column_ = 0;
    std::optional<TomlDepthProblem> problem_;
};

}  // namespace

std::optional<TomlDepthProblem> toml_depth_problem(std::string_view text) {
    return DepthScan(text).run();
}

std::string toml_depth_message(const TomlDepthProblem& problem) {
    return fmt::format(
        "this {} is nested {} levels deep (table header, dotted key parts, inline tables and "
        "arrays counted together); xferlab reads at most {} levels",
        problem.what, problem.depth, kMaxTomlDepth);
}

}  // namespace xfer::scenario_internal
