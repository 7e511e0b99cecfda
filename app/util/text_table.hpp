#pragma once
// A plain-text table that fits a terminal width: columns keep their natural width except one
// "flex" column, whose cells wrap onto continuation lines when the row would be too wide.
// ASCII only, so that width in bytes is width on screen.
//
// The terminal report's two ways of putting text on a line, so they are where the text from
// files (labels, notes, host facts) is made safe for the terminal (util/terminal_text.hpp): a
// cell and a wrapped paragraph are one line of content each, their control characters (a
// newline too) shown escaped. A newline in a label could otherwise start a line of its own.
#include <string>
#include <vector>

namespace xfer {

class TextTable {
  public:
    enum class Align { left, right };
    void add_column(std::string header, Align align, bool flex = false);
    void add_row(std::vector<std::string> cells);
    // Each line starts with `indent` spaces and is at most `width` characters long as long as
    // the fixed columns fit.
    std::string render(size_t width, size_t indent = 2) const;

  private:
    size_t longest_word(size_t column) const;  // in that column's cells
    struct Column {
        std::string header;
        Align align;
        bool flex;
    };
    std::vector<Column> columns_;
    std::vector<std::vector<std::string>> rows_;
};

// Word-wraps `text` to `width`: the first line starts with `first`, the others with `rest`.
// `text` is one paragraph: a line break in it is shown as \n, like every control character.
std::string wrap(const std::string& text, size_t width, const std::string& first,
                 const std::string& rest);

}  // namespace xfer
