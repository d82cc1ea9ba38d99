import { render } from "preact";
import { App } from "./App.jsx";
import "./styles.css";

render(<App />, document.getElementById("app"));
