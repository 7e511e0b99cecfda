#pragma once
// A plain-text table that fits a terminal width: columns keep their natural width except one
// "flex" column, whose cells wrap onto continuation lines when the row would be too wide.
// ASCII only, so that width in bytes is width on screen.
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

// Word-wraps `text` to `width`: the first line starts with `first`, the others with `rest`;
// line breaks in `text` are kept.
std::string wrap(const std::string& text, size_t width, const std::string& first,
                 const std::string& rest);

}  // namespace xfer
