NAME          ADLITTLE
ROWS
COLUMNS
    X01       X48               .301   R0yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy09